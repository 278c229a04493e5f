/*
 * A program built against an installed libreprosum (ffi/install.sh) the way a user's program
 * is: with CMake (CMakeLists.txt beside it: find_package(reprosum CONFIG REQUIRED)) or with
 * pkg-config. .ci/install.sh builds it both ways, shared and static, and checks what it prints.
 *
 *   consumer FILE...
 *
 * Each FILE holds raw little-endian doubles (any count, also none). Prints
 *   version X.Y.Z          adn_version(), after checking it against the header's macros
 *   sum HEX                per file: the bits of its sum at the default fold (adn_sum_f64)
 *   cuda STATUS [HEX]      per file, adn_cuda_sum_f64 of it (from host memory): 0 and the bits
 *                          with a CUDA GPU and a library built with --features cuda, 7
 *                          (ADN_NO_DEVICE) without a GPU, 6 (ADN_NOT_BUILT) without the feature
 * Exits non-zero on any other failure.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <reprosum.h>

static uint64_t bits(double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* The doubles of a file of little-endian bit patterns; NULL (with *n = 0) for an empty file. */
static double *read_doubles(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 0, len = 0;
    double *x = NULL;
    unsigned char b[8];
    size_t got;
    while ((got = fread(b, 1, 8, f)) == 8) {
        if (len == cap) {
            cap = cap ? 2 * cap : 1024;
            x = realloc(x, cap * sizeof *x);
            if (!x) {
                fprintf(stderr, "out of memory\n");
                exit(2);
            }
        }
        uint64_t u = 0;
        for (int i = 7; i >= 0; i--) u = (u << 8) | b[i];
        memcpy(&x[len++], &u, sizeof u);
    }
    if (got != 0 || ferror(f)) {
        fprintf(stderr, "%s: not a whole number of doubles\n", path);
        exit(2);
    }
    fclose(f);
    *n = len;
    return x;
}

int main(int argc, char **argv) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", ADN_VERSION_MAJOR, ADN_VERSION_MINOR,
             ADN_VERSION_PATCH);
    if (strcmp(adn_version(), want) != 0) {
        fprintf(stderr, "header %s, library %s\n", want, adn_version());
        return 1;
    }
    printf("version %s\n", adn_version());
    for (int i = 1; i < argc; i++) {
        size_t n;
        double *x = read_doubles(argv[i], &n), s;
        adn_status st = adn_sum_f64(x, n, &s);
        if (st != ADN_OK) {
            fprintf(stderr, "%s: %s\n", argv[i], adn_status_string(st));
            return 1;
        }
        printf("sum %016" PRIX64 "\n", bits(s));
        st = adn_cuda_sum_f64(x, n, &s);
        if (st == ADN_OK)
            printf("cuda 0 %016" PRIX64 "\n", bits(s));
        else
            printf("cuda %d\n", (int)st);
        free(x);
    }
    return 0;
}
