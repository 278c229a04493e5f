/*
 * reprosum_mpi.h: reproducible sums and cumulative sums of arrays distributed over the ranks
 * of an MPI communicator, on top of libreprosum (include/reprosum.h).
 *
 * Header-only: every function is `static inline`; libreprosum itself does not depend on MPI.
 * C99 and later, C++11 and later; include it after or instead of reprosum.h, compile with
 * mpicc / mpicxx and link libreprosum as usual.
 *
 *   adn_mpi_sum_f64(x, n, fold, &out, comm)      every rank gets the sum of all ranks' x
 *   adn_mpi_cumsum_f64(in, out, n, fold, comm)   each rank gets its slice of the cumulative
 *                                                sum of the ranks' arrays in rank order
 *   adn_mpi_cuda_sum_f64 / adn_mpi_cuda_cumsum_f64   the same on CUDA device shards
 *   (and the _f32 twins of each)
 *
 * The results have the bits of the one-process sum (adn_sum_f64_fold) and cumulative sum
 * (adn_cumsum_f64_fold) of the concatenation of the ranks' arrays, rank 0 first, for any
 * number of ranks and any split of the data, empty shards included.
 *
 * How: each rank adds its array to an accumulator; the accumulators (one element of a
 * contiguous byte datatype each) are merged by a commutative user operation, which is
 * exact, so any reduction tree gives the same state. The sum is one MPI_Allreduce; the
 * cumulative sum is one MPI_Exscan (rank r gets the merge of ranks 0..r-1; rank 0 starts from
 * an empty accumulator, as MPI leaves its result undefined) followed by
 * adn_cumsum_f64_from(prefix, ...) on the local slice.
 *
 * Statuses. Each function returns an adn_status and, as for the one-process functions,
 * writes its output only on success. The arguments are checked first, with the checks and
 * the order of the C library (adn_sum_f64_fold, adn_cumsum_f64_fold: NULL, alignment, fold,
 * capacity, overlap), then the ranks agree on a status in one small MPI_Allreduce before any
 * accumulator is exchanged, so a rank with a bad argument never leaves the others waiting
 * in a collective, and every rank returns the same status:
 *   - if some rank had a bad argument: the smallest such status code of all ranks;
 *   - else, if the ranks passed different folds: ADN_FOLD_MISMATCH;
 *   - else, if all ranks together hold more values than the capacity (ADN_CAPACITY_F64 /
 *     ADN_CAPACITY_F32), as one process would: ADN_CAPACITY_EXCEEDED;
 *   - else the operation runs (ADN_OK).
 * The CUDA variants check the host-side arguments the same way (also in a build without
 * CUDA, which then gives ADN_NOT_BUILT on every rank), add the local shard on the device
 * before the agreement, so ADN_NOT_BUILT, ADN_NO_DEVICE, a fold the kernels lack and device
 * errors of that step are agreed on too. What only the last, local step of a cumulative sum
 * can find (adn_cuda_cumsum_f64_from: input and output in different memories,
 * ADN_INVALID_POINTER, or a device failure) is returned by the rank that hit it alone.
 *
 * MPI errors. A failing MPI call gives ADN_MPI_ERROR, on the rank that saw the failure. With
 * MPI's default error handler (MPI_ERRORS_ARE_FATAL) a failing call aborts the job before
 * it returns; set MPI_ERRORS_RETURN on the communicator to get the status instead (MPI does
 * not promise that the job can go on after an error). ADN_MPI_ERROR, at once and on the
 * calling rank only, also for: MPI not initialised or already finalised, MPI_COMM_NULL, an
 * intercommunicator. `comm` must be the same communicator on all of its ranks, and every
 * rank must call the same function, as for any collective.
 *
 * Datatypes and operations. adn_mpi_type_acc_f64() / adn_mpi_op_acc_f64() (and _f32) give
 * the MPI_Datatype (sizeof(adn_acc_f64) bytes, contiguous) and the commutative MPI_Op that
 * merges accumulators, for your own MPI_Allreduce / MPI_Reduce / MPI_Scan / MPI_Exscan of
 * accumulators. They are created on first use (or by adn_mpi_setup()) and cached; an
 * attribute on MPI_COMM_SELF frees them when MPI_Finalize runs: never free them yourself.
 * The cache is per translation unit (the header has no shared state), so two source files
 * may hold different, equivalent handles. The lazy creation is not thread-safe: a program
 * that calls these functions from several threads (MPI_THREAD_MULTIPLE) calls
 * adn_mpi_setup() once first; after that everything here is reentrant.
 *
 * Errors inside the user operation. An MPI user function cannot return an error. When a
 * merge fails inside it (accumulators of different folds, more values than the capacity, an
 * accumulator not initialised), the result element is *poisoned*: zeroed but for a mark
 * holding the status; its zero tag word makes every libreprosum function refuse it
 * (ADN_NOT_INITIALIZED). A
 * poisoned input poisons the result, and of two poisons the smaller status is kept. After a
 * reduction, adn_mpi_acc_f64_status(&result) returns that status (ADN_OK for a valid
 * accumulator). The functions above never get there: they agree on the arguments first.
 *
 * Link: as for reprosum.h, plus MPI (mpicc). SPDX-License-Identifier: MIT OR Apache-2.0
 */
#ifndef REPROSUM_MPI_H
#define REPROSUM_MPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reprosum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- internals (names ending in '_'; not part of the interface) ---- */

/* The alignment of double and float as the C ABI (and the library's checks) see it. */
typedef struct adn_mpi_align_f64_ {
    char c;
    double d;
} adn_mpi_align_f64_;
typedef struct adn_mpi_align_f32_ {
    char c;
    float f;
} adn_mpi_align_f32_;

/* The cached handles of this translation unit. */
typedef struct adn_mpi_cache_ {
    int ready;
    MPI_Datatype t64, t32, tcheck;
    MPI_Op op64, op32, opcheck;
} adn_mpi_cache_;

static inline adn_mpi_cache_ *adn_mpi_cache_get_(void) {
    static adn_mpi_cache_ cache; /* zero: not ready */
    return &cache;
}

/* A poisoned accumulator: every byte zero (refused by the library), except the mark in the
 * words at byte offsets 8 and 16: this magic ("ADNPOISN") and the status. */
#define ADN_MPI_POISON_MAGIC_ UINT64_C(0x41444E504F49534E)

static inline adn_status adn_mpi_poison_of_(const void *acc) {
    uint64_t w[3];
    memcpy(w, acc, sizeof w); /* any alignment */
    if (w[0] == 0 && w[1] == ADN_MPI_POISON_MAGIC_ && w[2] != 0 && w[2] <= INT32_MAX) return (adn_status)w[2];
    return ADN_OK;
}

static inline void adn_mpi_poison_(void *acc, size_t size, adn_status st) {
    uint64_t w[3];
    w[0] = 0;
    w[1] = ADN_MPI_POISON_MAGIC_;
    w[2] = (uint64_t)(st > 0 ? st : ADN_INTERNAL_ERROR);
    memset(acc, 0, size);
    memcpy(acc, w, sizeof w);
}

/* inout = merge(inout, in) for one element of either type, poisoning on failure. */
static inline void adn_mpi_merge_one_(void *in, void *inout, int f64) {
    size_t size = f64 ? sizeof(adn_acc_f64) : sizeof(adn_acc_f32);
    adn_status pa = adn_mpi_poison_of_(inout), pb = adn_mpi_poison_of_(in), st;
    if (pa || pb) {
        adn_mpi_poison_(inout, size, pa && pb ? (pa < pb ? pa : pb) : (pa ? pa : pb));
        return;
    }
    if ((uintptr_t)inout % sizeof(uint64_t) == 0) {
        st = f64 ? adn_acc_f64_merge((adn_acc_f64 *)inout, (const adn_acc_f64 *)in)
                 : adn_acc_f32_merge((adn_acc_f32 *)inout, (const adn_acc_f32 *)in);
    } else { /* MPI's buffers need not be aligned: merge in an aligned copy */
        union {
            adn_acc_f64 a64;
            adn_acc_f32 a32;
        } tmp;
        memcpy(&tmp, inout, size);
        st = f64 ? adn_acc_f64_merge(&tmp.a64, (const adn_acc_f64 *)in)
                 : adn_acc_f32_merge(&tmp.a32, (const adn_acc_f32 *)in);
        if (st == ADN_OK) memcpy(inout, &tmp, size);
    }
    if (st != ADN_OK) adn_mpi_poison_(inout, size, st);
}

/* ---- the user operations ---- */

/* MPI_User_function merging adn_acc_f64 elements: inout[i] = merge(inout[i], in[i]).
 * Commutative and associative (exact merges; poisons keep the smaller status). */
static inline void adn_mpi_merge_acc_f64(void *in, void *inout, int *len, MPI_Datatype *type) {
    int i;
    (void)type;
    for (i = 0; i < *len; i++)
        adn_mpi_merge_one_((char *)in + (size_t)i * sizeof(adn_acc_f64),
                           (char *)inout + (size_t)i * sizeof(adn_acc_f64), 1);
}

/* MPI_User_function merging adn_acc_f32 elements. As adn_mpi_merge_acc_f64. */
static inline void adn_mpi_merge_acc_f32(void *in, void *inout, int *len, MPI_Datatype *type) {
    int i;
    (void)type;
    for (i = 0; i < *len; i++)
        adn_mpi_merge_one_((char *)in + (size_t)i * sizeof(adn_acc_f32),
                           (char *)inout + (size_t)i * sizeof(adn_acc_f32), 0);
}

/* The agreement record: the smallest bad-argument status (UINT64_MAX: none), the smallest
 * and largest fold of the ranks without one (UINT64_MAX and 0: none), and the number of
 * values of those ranks (adding, saturated at UINT64_MAX). */
typedef struct adn_mpi_check_ {
    uint64_t status, fold_min, fold_max, count;
} adn_mpi_check_;

static inline void adn_mpi_check_op_(void *in, void *inout, int *len, MPI_Datatype *type) {
    int i;
    (void)type;
    for (i = 0; i < *len; i++) {
        adn_mpi_check_ a, b;
        memcpy(&a, (char *)inout + (size_t)i * sizeof a, sizeof a);
        memcpy(&b, (char *)in + (size_t)i * sizeof b, sizeof b);
        if (b.status < a.status) a.status = b.status;
        if (b.fold_min < a.fold_min) a.fold_min = b.fold_min;
        if (b.fold_max > a.fold_max) a.fold_max = b.fold_max;
        a.count = b.count > UINT64_MAX - a.count ? UINT64_MAX : a.count + b.count;
        memcpy((char *)inout + (size_t)i * sizeof a, &a, sizeof a);
    }
}

/* Frees the handles: the delete callback of the MPI_COMM_SELF attribute (MPI_Finalize). */
static inline int adn_mpi_free_cb_(MPI_Comm comm, int keyval, void *attr, void *extra) {
    adn_mpi_cache_ *c = (adn_mpi_cache_ *)attr;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (c->ready) {
        MPI_Op_free(&c->op64);
        MPI_Op_free(&c->op32);
        MPI_Op_free(&c->opcheck);
        MPI_Type_free(&c->t64);
        MPI_Type_free(&c->t32);
        MPI_Type_free(&c->tcheck);
        c->ready = 0;
    }
    return MPI_SUCCESS;
}

/* ---- setup and handles ---- */

/* Creates this translation unit's datatypes and operations if they do not exist yet.
 * ADN_OK, or ADN_MPI_ERROR (MPI not initialised, finalised, or a failing call; nothing is
 * left half-made). Called by every function here; call it once yourself before using them
 * from several threads. */
static inline adn_status adn_mpi_setup(void) {
    adn_mpi_cache_ *c = adn_mpi_cache_get_();
    int flag = 0, keyval = MPI_KEYVAL_INVALID, made = 0, ok;
    if (c->ready) return ADN_OK;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag) return ADN_MPI_ERROR;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag) return ADN_MPI_ERROR;
    /* made counts the handles created, in this order, for the clean-up on failure. */
    ok = MPI_Type_contiguous((int)sizeof(adn_acc_f64), MPI_BYTE, &c->t64) == MPI_SUCCESS && ++made &&
         MPI_Type_commit(&c->t64) == MPI_SUCCESS &&
         MPI_Type_contiguous((int)sizeof(adn_acc_f32), MPI_BYTE, &c->t32) == MPI_SUCCESS && ++made &&
         MPI_Type_commit(&c->t32) == MPI_SUCCESS &&
         MPI_Type_contiguous((int)sizeof(adn_mpi_check_), MPI_BYTE, &c->tcheck) == MPI_SUCCESS && ++made &&
         MPI_Type_commit(&c->tcheck) == MPI_SUCCESS &&
         MPI_Op_create(adn_mpi_merge_acc_f64, 1, &c->op64) == MPI_SUCCESS && ++made &&
         MPI_Op_create(adn_mpi_merge_acc_f32, 1, &c->op32) == MPI_SUCCESS && ++made &&
         MPI_Op_create(adn_mpi_check_op_, 1, &c->opcheck) == MPI_SUCCESS && ++made &&
         MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, adn_mpi_free_cb_, &keyval, NULL) == MPI_SUCCESS &&
         ++made && MPI_Comm_set_attr(MPI_COMM_SELF, keyval, c) == MPI_SUCCESS;
    /* The attribute keeps the key alive until MPI_COMM_SELF is freed by MPI_Finalize. */
    if (made >= 7) MPI_Comm_free_keyval(&keyval);
    if (ok) {
        c->ready = 1;
        return ADN_OK;
    }
    if (made >= 6) MPI_Op_free(&c->opcheck);
    if (made >= 5) MPI_Op_free(&c->op32);
    if (made >= 4) MPI_Op_free(&c->op64);
    if (made >= 3) MPI_Type_free(&c->tcheck);
    if (made >= 2) MPI_Type_free(&c->t32);
    if (made >= 1) MPI_Type_free(&c->t64);
    return ADN_MPI_ERROR;
}

/* The datatype of one adn_acc_f64 (sizeof(adn_acc_f64) contiguous bytes), or
 * MPI_DATATYPE_NULL if it cannot be created. Freed by MPI_Finalize; do not free it. */
static inline MPI_Datatype adn_mpi_type_acc_f64(void) {
    return adn_mpi_setup() == ADN_OK ? adn_mpi_cache_get_()->t64 : MPI_DATATYPE_NULL;
}

/* The datatype of one adn_acc_f32. As adn_mpi_type_acc_f64. */
static inline MPI_Datatype adn_mpi_type_acc_f32(void) {
    return adn_mpi_setup() == ADN_OK ? adn_mpi_cache_get_()->t32 : MPI_DATATYPE_NULL;
}

/* The commutative operation merging adn_acc_f64 elements (adn_mpi_merge_acc_f64), or
 * MPI_OP_NULL if it cannot be created. Freed by MPI_Finalize; do not free it. */
static inline MPI_Op adn_mpi_op_acc_f64(void) {
    return adn_mpi_setup() == ADN_OK ? adn_mpi_cache_get_()->op64 : MPI_OP_NULL;
}

/* The operation merging adn_acc_f32 elements. As adn_mpi_op_acc_f64. */
static inline MPI_Op adn_mpi_op_acc_f32(void) {
    return adn_mpi_setup() == ADN_OK ? adn_mpi_cache_get_()->op32 : MPI_OP_NULL;
}

/* After a reduction with the operations above: ADN_OK for a valid accumulator, the status
 * recorded in a poisoned one (see "Errors inside the user operation"), else what the library
 * says of it (ADN_NULL_POINTER, ADN_MISALIGNED, ADN_NOT_INITIALIZED). */
static inline adn_status adn_mpi_acc_f64_status(const adn_acc_f64 *acc) {
    uint64_t n;
    adn_status st = adn_acc_f64_count(acc, &n);
    return st == ADN_NOT_INITIALIZED && adn_mpi_poison_of_(acc) ? adn_mpi_poison_of_(acc) : st;
}

/* As adn_mpi_acc_f64_status, for an adn_acc_f32. */
static inline adn_status adn_mpi_acc_f32_status(const adn_acc_f32 *acc) {
    uint64_t n;
    adn_status st = adn_acc_f32_count(acc, &n);
    return st == ADN_NOT_INITIALIZED && adn_mpi_poison_of_(acc) ? adn_mpi_poison_of_(acc) : st;
}

/* ---- the argument checks, as the library's (ffi/src/args.rs) ---- */

/* An array of n values of `size` bytes at p: NULL only when n == 0, aligned, n within the
 * capacity, n * size bytes that fit the address space from p. */
static inline adn_status adn_mpi_array_(const void *p, size_t n, size_t size, size_t align, uint64_t cap) {
    if (n == 0) return ADN_OK;
    if (p == NULL) return ADN_NULL_POINTER;
    if ((uintptr_t)p % align != 0) return ADN_MISALIGNED;
    if ((uint64_t)n > cap) return ADN_CAPACITY_EXCEEDED;
    if (n > (size_t)PTRDIFF_MAX / size) return ADN_CAPACITY_EXCEEDED;
    if (n * size > UINTPTR_MAX - (uintptr_t)p) return ADN_CAPACITY_EXCEEDED;
    return ADN_OK;
}

/* A non-NULL, aligned scalar output. */
static inline adn_status adn_mpi_out_(const void *p, size_t align) {
    if (p == NULL) return ADN_NULL_POINTER;
    return (uintptr_t)p % align != 0 ? ADN_MISALIGNED : ADN_OK;
}

/* A cumulative sum's arguments, in adn_cumsum_f64_fold's order (the fold is checked by the
 * caller's adn_acc_*_init, which must come second: pass its status). */
static inline adn_status adn_mpi_cumsum_args_(const void *in, const void *out, size_t n, size_t size,
                                              size_t align, uint64_t cap, adn_status fold_status) {
    adn_status st;
    if (n > 0 && (in == NULL || out == NULL)) return ADN_NULL_POINTER;
    if (fold_status != ADN_OK) return fold_status;
    if ((st = adn_mpi_array_(in, n, size, align, cap)) != ADN_OK) return st;
    if ((st = adn_mpi_array_(out, n, size, align, cap)) != ADN_OK) return st;
    if (n > 0 && in != out) {
        uintptr_t a = (uintptr_t)in, b = (uintptr_t)out, len = (uintptr_t)(n * size);
        if (a < b + len && b < a + len) return ADN_OVERLAP;
    }
    return ADN_OK;
}

/* Usable for collectives here: MPI initialised and not finalised, the handles made, comm an
 * intracommunicator. ADN_OK or ADN_MPI_ERROR; local (no communication). */
static inline adn_status adn_mpi_comm_ok_(MPI_Comm comm) {
    int inter = 1;
    if (adn_mpi_setup() != ADN_OK) return ADN_MPI_ERROR;
    if (comm == MPI_COMM_NULL) return ADN_MPI_ERROR;
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return ADN_MPI_ERROR;
    return ADN_OK;
}

/* The collective agreement on the arguments (see "Statuses" above). */
static inline adn_status adn_mpi_agree_(adn_status local, unsigned int fold, size_t n, uint64_t cap,
                                        MPI_Comm comm) {
    adn_mpi_cache_ *c = adn_mpi_cache_get_();
    adn_mpi_check_ mine, all;
    mine.status = local != ADN_OK ? (uint64_t)(uint32_t)local : UINT64_MAX;
    mine.fold_min = local != ADN_OK ? UINT64_MAX : fold;
    mine.fold_max = local != ADN_OK ? 0 : fold;
    mine.count = local != ADN_OK ? 0 : (uint64_t)n;
    if (MPI_Allreduce(&mine, &all, 1, c->tcheck, c->opcheck, comm) != MPI_SUCCESS) return ADN_MPI_ERROR;
    if (all.status != UINT64_MAX) return (adn_status)all.status;
    if (all.fold_min != all.fold_max) return ADN_FOLD_MISMATCH;
    if (all.count > cap) return ADN_CAPACITY_EXCEEDED;
    return ADN_OK;
}

/* ---- sums ---- */

/* The four sums: `device` selects adn_cuda_acc_*_add_array (before the agreement) or
 * adn_acc_*_add_array (after it). */
static inline adn_status adn_mpi_sum_(const void *x, size_t n, unsigned int fold, void *out, MPI_Comm comm,
                                      int f64, int device) {
    adn_mpi_cache_ *c = adn_mpi_cache_get_();
    union {
        adn_acc_f64 a64;
        adn_acc_f32 a32;
    } acc, res;
    adn_status st = adn_mpi_comm_ok_(comm);
    size_t size = f64 ? sizeof(double) : sizeof(float);
    size_t align = f64 ? offsetof(adn_mpi_align_f64_, d) : offsetof(adn_mpi_align_f32_, f);
    uint64_t cap = f64 ? ADN_CAPACITY_F64 : ADN_CAPACITY_F32;
    double v64 = 0.0;
    float v32 = 0.0f;
    if (st != ADN_OK) return st;
    /* adn_sum_f64_fold's order: out, fold, x. */
    st = adn_mpi_out_(out, align);
    if (st == ADN_OK) st = f64 ? adn_acc_f64_init(&acc.a64, fold) : adn_acc_f32_init(&acc.a32, fold);
    if (st == ADN_OK) st = adn_mpi_array_(x, n, size, align, cap);
    if (st == ADN_OK && device)
        st = f64 ? adn_cuda_acc_f64_add_array(&acc.a64, (const double *)x, n)
                 : adn_cuda_acc_f32_add_array(&acc.a32, (const float *)x, n);
    st = adn_mpi_agree_(st, fold, n, cap, comm);
    if (st != ADN_OK) return st;
    if (!device) {
        st = f64 ? adn_acc_f64_add_array(&acc.a64, (const double *)x, n)
                 : adn_acc_f32_add_array(&acc.a32, (const float *)x, n);
        /* Checked above, so not expected; a failure still takes part, poisoned. */
        if (st != ADN_OK) adn_mpi_poison_(&acc, f64 ? sizeof(adn_acc_f64) : sizeof(adn_acc_f32), st);
    }
    if (MPI_Allreduce(&acc, &res, 1, f64 ? c->t64 : c->t32, f64 ? c->op64 : c->op32, comm) != MPI_SUCCESS)
        return ADN_MPI_ERROR;
    st = f64 ? adn_mpi_acc_f64_status(&res.a64) : adn_mpi_acc_f32_status(&res.a32);
    if (st != ADN_OK) return st;
    st = f64 ? adn_acc_f64_value(&res.a64, &v64) : adn_acc_f32_value(&res.a32, &v32);
    if (st != ADN_OK) return st;
    if (f64)
        memcpy(out, &v64, sizeof v64);
    else
        memcpy(out, &v32, sizeof v32);
    return ADN_OK;
}

/* The four cumulative sums. */
static inline adn_status adn_mpi_cumsum_(const void *input, void *out, size_t n, unsigned int fold,
                                         MPI_Comm comm, int f64, int device) {
    adn_mpi_cache_ *c = adn_mpi_cache_get_();
    union {
        adn_acc_f64 a64;
        adn_acc_f32 a32;
    } acc, prefix;
    adn_status st = adn_mpi_comm_ok_(comm);
    size_t size = f64 ? sizeof(double) : sizeof(float);
    size_t align = f64 ? offsetof(adn_mpi_align_f64_, d) : offsetof(adn_mpi_align_f32_, f);
    uint64_t cap = f64 ? ADN_CAPACITY_F64 : ADN_CAPACITY_F32;
    int rank = 0;
    if (st != ADN_OK) return st;
    if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS) return ADN_MPI_ERROR;
    st = f64 ? adn_acc_f64_init(&acc.a64, fold) : adn_acc_f32_init(&acc.a32, fold);
    st = adn_mpi_cumsum_args_(input, out, n, size, align, cap, st);
    if (st == ADN_OK && device)
        st = f64 ? adn_cuda_acc_f64_add_array(&acc.a64, (const double *)input, n)
                 : adn_cuda_acc_f32_add_array(&acc.a32, (const float *)input, n);
    st = adn_mpi_agree_(st, fold, n, cap, comm);
    if (st != ADN_OK) return st;
    if (!device) {
        st = f64 ? adn_acc_f64_add_array(&acc.a64, (const double *)input, n)
                 : adn_acc_f32_add_array(&acc.a32, (const float *)input, n);
        if (st != ADN_OK) adn_mpi_poison_(&acc, f64 ? sizeof(adn_acc_f64) : sizeof(adn_acc_f32), st);
    }
    if (MPI_Exscan(&acc, &prefix, 1, f64 ? c->t64 : c->t32, f64 ? c->op64 : c->op32, comm) != MPI_SUCCESS)
        return ADN_MPI_ERROR;
    /* Rank 0's result is undefined: it starts from an empty accumulator. */
    if (rank == 0) {
        st = f64 ? adn_acc_f64_init(&prefix.a64, fold) : adn_acc_f32_init(&prefix.a32, fold);
        if (st != ADN_OK) return st;
    }
    st = f64 ? adn_mpi_acc_f64_status(&prefix.a64) : adn_mpi_acc_f32_status(&prefix.a32);
    if (st != ADN_OK) return st;
    if (device)
        return f64 ? adn_cuda_cumsum_f64_from(&prefix.a64, (const double *)input, (double *)out, n)
                   : adn_cuda_cumsum_f32_from(&prefix.a32, (const float *)input, (float *)out, n);
    return f64 ? adn_cumsum_f64_from(&prefix.a64, (const double *)input, (double *)out, n)
               : adn_cumsum_f32_from(&prefix.a32, (const float *)input, (float *)out, n);
}

/* ---- the interface ---- */

/* The reproducible sum of the ranks' arrays (x: this rank's n doubles) at fold `fold`
 * (2..52), into *out on every rank: the bits of adn_sum_f64_fold over the concatenation, rank
 * 0 first (any order gives these bits). Collective over comm. */
static inline adn_status adn_mpi_sum_f64(const double *x, size_t n, unsigned int fold, double *out,
                                         MPI_Comm comm) {
    return adn_mpi_sum_(x, n, fold, out, comm, 1, 0);
}

/* The float twin of adn_mpi_sum_f64 (fold 2..21). */
static inline adn_status adn_mpi_sum_f32(const float *x, size_t n, unsigned int fold, float *out,
                                         MPI_Comm comm) {
    return adn_mpi_sum_(x, n, fold, out, comm, 0, 0);
}

/* This rank's slice of the reproducible cumulative sum of the ranks' arrays in rank order:
 * out[i] = the sum of all values of ranks below this one and input[0..i], with the bits of
 * adn_cumsum_f64_fold over the concatenation. input == out computes in place; any other
 * overlap is ADN_OVERLAP. Collective over comm. */
static inline adn_status adn_mpi_cumsum_f64(const double *input, double *out, size_t n, unsigned int fold,
                                            MPI_Comm comm) {
    return adn_mpi_cumsum_(input, out, n, fold, comm, 1, 0);
}

/* The float twin of adn_mpi_cumsum_f64. */
static inline adn_status adn_mpi_cumsum_f32(const float *input, float *out, size_t n, unsigned int fold,
                                            MPI_Comm comm) {
    return adn_mpi_cumsum_(input, out, n, fold, comm, 0, 0);
}

/* adn_mpi_sum_f64 of shards in CUDA device memory (or host memory: the entry points accept
 * both), added on the current device by adn_cuda_acc_f64_add_array; *out is host memory.
 * Every fold (2..ADN_MAX_FOLD_F64, the same as ADN_MAX_FOLD_GPU). ADN_NOT_BUILT on every rank if the library lacks CUDA. */
static inline adn_status adn_mpi_cuda_sum_f64(const double *x, size_t n, unsigned int fold, double *out,
                                              MPI_Comm comm) {
    return adn_mpi_sum_(x, n, fold, out, comm, 1, 1);
}

/* The float twin of adn_mpi_cuda_sum_f64. */
static inline adn_status adn_mpi_cuda_sum_f32(const float *x, size_t n, unsigned int fold, float *out,
                                              MPI_Comm comm) {
    return adn_mpi_sum_(x, n, fold, out, comm, 0, 1);
}

/* adn_mpi_cumsum_f64 of shards in CUDA device memory (or host memory; input and output in the
 * same memory), through adn_cuda_acc_f64_add_array and adn_cuda_cumsum_f64_from. */
static inline adn_status adn_mpi_cuda_cumsum_f64(const double *input, double *out, size_t n,
                                                 unsigned int fold, MPI_Comm comm) {
    return adn_mpi_cumsum_(input, out, n, fold, comm, 1, 1);
}

/* The float twin of adn_mpi_cuda_cumsum_f64. */
static inline adn_status adn_mpi_cuda_cumsum_f32(const float *input, float *out, size_t n,
                                                 unsigned int fold, MPI_Comm comm) {
    return adn_mpi_cumsum_(input, out, n, fold, comm, 0, 1);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* REPROSUM_MPI_H */
