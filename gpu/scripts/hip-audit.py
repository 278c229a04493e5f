#!/usr/bin/env python3
"""Checks the HIP code objects for the arithmetic the format needs (run by
`build-hip.sh --audit DIR`, which leaves DIR/<target>.o, .s (disassembly) and .ll (LLVM IR)).

1. LLVM IR: no fused or contractable floating-point operation (no llvm.fma / llvm.fmuladd
   call, no fast-math flag on any fadd/fsub/fmul/fdiv/fptrunc), and every function's
   denormal mode is IEEE (no "preserve-sign"/"positive-zero" denormal-fp-math attribute).
2. ISA: no f64 or packed/mixed FMA instruction at all (v_fma_f64, v_fmac_f64, v_pk_fma_*,
   v_fma_mix*). The only f32 multiply-adds allowed (v_mad_f32, v_mac_f32, v_fma_f32,
   v_fmac_f32) are those of the compiler's integer-division expansion
   (a v_trunc_f32, an integer conversion or the 2^32 constants 0x4f800000 /
   0xcf800000 within 8 instructions): integer
   arithmetic, exact by construction, not the format's floating-point steps.
3. Kernel descriptors: every kernel runs with FLOAT_DENORM_MODE_32 = FLOAT_DENORM_MODE_16_64 =
   3 (denormals kept on input and output) and round to nearest even (FLOAT_ROUND_MODE = 0),
   read from compute_pgm_rsrc1 of each `.kd` symbol.
"""
import re
import struct
import sys


def fail(msg):
    print(f"hip-audit: FAIL: {msg}")
    sys.exit(1)


def audit_ir(path):
    text = open(path).read()
    if re.search(r"@llvm\.(fma|fmuladd)\.", text):
        fail(f"{path}: llvm.fma / llvm.fmuladd call")
    flags = re.compile(r"=\s*(fadd|fsub|fmul|fdiv|fptrunc|fneg)\s+((?:fast|reassoc|nnan|ninf|nsz|arcp|contract|afn)\b)")
    m = flags.search(text)
    if m:
        fail(f"{path}: fast-math flag on an FP operation: {m.group(0)}")
    for m in re.finditer(r'"denormal-fp-math(-f32)?"="([^"]*)"', text):
        if m.group(2) not in ("ieee,ieee", "ieee"):
            fail(f"{path}: denormal mode {m.group(0)}")
    nfp = len(re.findall(r"=\s*(?:fadd|fsub|fmul)\s+(?:double|float)", text))
    return nfp


def audit_isa(path):
    lines = open(path).read().splitlines()
    fma = re.compile(r"\b(v_fma_f64|v_fmac_f64\w*|v_fma_f16|v_fmac_f16\w*|v_pk_fma_\w+|v_fma_mix\w*|v_mad_mix\w*|v_mad_legacy_f32|v_mad_f16|v_fma_legacy_f32)\b")
    mad = re.compile(r"\b(v_mad_f32|v_mac_f32\w*|v_fma_f32|v_fmac_f32\w*)\b")
    nmad = 0
    for i, line in enumerate(lines):
        code = line.split("//")[0]
        if fma.search(code):
            fail(f"{path}:{i + 1}: FMA instruction: {code.strip()}")
        if mad.search(code):
            ctx = " ".join(l.split("//")[0] for l in lines[max(0, i - 8):i + 8])
            if not any(k in ctx for k in ("v_trunc_f32", "v_cvt_u32_f32", "v_cvt_f32_u32", "0x4f800000",
                                          "0xcf800000", "v_rcp_iflag_f32")):
                fail(f"{path}:{i + 1}: f32 multiply-add outside an integer-division expansion: {code.strip()}")
            nmad += 1
    return nmad


def audit_descriptors(path):
    elf = open(path, "rb").read()
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    secs = []
    for i in range(shnum):
        name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
            "<IIQQQQIIQQ", elf, shoff + i * shentsize)
        secs.append((name, typ, addr, off, size, link, entsize))
    symtab = next(s for s in secs if s[1] == 2)  # SHT_SYMTAB
    strtab = secs[symtab[5]]
    n = 0
    for j in range(symtab[4] // symtab[6]):
        st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
            "<IBBHQQ", elf, symtab[3] + j * symtab[6])
        end = elf.index(b"\0", strtab[3] + st_name)
        name = elf[strtab[3] + st_name:end].decode()
        if not name.endswith(".kd"):
            continue
        sec = secs[st_shndx]
        kd = elf[sec[3] + st_value - sec[2]:][:64]
        (rsrc1,) = struct.unpack_from("<I", kd, 48)
        round32, round64 = (rsrc1 >> 12) & 3, (rsrc1 >> 14) & 3
        den32, den64 = (rsrc1 >> 16) & 3, (rsrc1 >> 18) & 3
        if (round32, round64, den32, den64) != (0, 0, 3, 3):
            fail(f"{path}: {name}: round modes {round32},{round64}, denormal modes {den32},{den64}")
        n += 1
    # 14 kernels (sum, tile_reduce, tile_reduce_fixed, tile_prefixes, tile_scan,
    # tile_scan_fixed, cumsum_lookback, seg_sum, seg_long, seg_join, seg_dense, seg_dense_join,
    # rows_short, rows_long) x 2 types x 7 folds, 11 run-time-fold kernels (sum, tile_reduce,
    # tile_prefixes, tile_scan, seg_sum, seg_long, seg_join, seg_dense, seg_dense_join,
    # rows_short, rows_long) x 2 types, the probe, seg_prep, seg_list, the keyed sums' 6
    # (key_count, the 3 integer scans, key_scatter x 2 types), the key ranges' 10 (kr_count,
    # kr_plan; kr_part, kr_part2, kr_acc, kr_merge x 2 types) and the segmented cumsum's 3
    # run-time-fold kernels (segcs_reduce, segcs_carry, segcs_scan) x 2 types.
    if n != 259:
        fail(f"{path}: {n} kernel descriptors, want 259")
    return n


def main():
    d, archs = sys.argv[1], sys.argv[2:]
    for a in archs:
        nfp = audit_ir(f"{d}/{a}.ll")
        nmad = audit_isa(f"{d}/{a}.s")
        nkd = audit_descriptors(f"{d}/{a}.o")
        print(f"hip-audit: {a}: IR {nfp} FP add/sub/mul, none contractable, IEEE denormals; "
              f"ISA no f64 FMA, {nmad} f32 multiply-adds, all in integer division; "
              f"{nkd} kernels with denormals kept and round to nearest even")


main()
