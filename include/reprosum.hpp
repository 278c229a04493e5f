// reprosum.hpp: the C++17 interface of libreprosum, a thin header over reprosum.h.
//
// Names follow SyclReproSum's (adn::sum, adn::cumsum, adn::max_reproducible_count), without
// the queue argument: these run on the host, on plain pointers.
//
//   #include "reprosum.hpp"
//   double s = adn::sum(x.data(), x.size());           // K = 3
//   float t = adn::sum<6>(f.data(), f.size());         // K = 6
//   adn::cumsum(x.data(), out.data(), x.size());       // out[i] = sum of x[0..i]
//
// Errors throw adn::error (a std::runtime_error carrying the adn_status). SyclReproSum
// throws std::length_error when N passes the capacity; here that is adn::error with
// status() == ADN_CAPACITY_EXCEEDED.
//
// SPDX-License-Identifier: MIT OR Apache-2.0
#ifndef REPROSUM_HPP
#define REPROSUM_HPP

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "reprosum.h"

namespace adn {

namespace detail {
template <typename T>
struct traits; // float and double only

template <>
struct traits<double> {
    static constexpr std::uint64_t capacity = ADN_CAPACITY_F64;
    static constexpr int max_fold = ADN_MAX_FOLD_F64;
    using acc_type = adn_acc_f64;
    static adn_status sum(const double *x, std::size_t n, unsigned k, double *out) noexcept {
        return adn_sum_f64_fold(x, n, k, out);
    }
    static adn_status cumsum(const double *in, double *out, std::size_t n, unsigned k) noexcept {
        return adn_cumsum_f64_fold(in, out, n, k);
    }
    static adn_status segmented_sum(const double *x, const std::size_t *offsets, std::size_t nseg, unsigned k,
                                    double *out) noexcept {
        return adn_segmented_sum_f64(x, offsets, nseg, k, out);
    }
    static adn_status sum_rows(const double *x, std::size_t rows, std::size_t cols, std::size_t stride, unsigned k,
                               double *out) noexcept {
        return adn_sum_rows_f64(x, rows, cols, stride, k, out);
    }
    static adn_status sum_by_key(const double *x, const std::int64_t *keys, std::size_t n, std::size_t nkeys,
                                 unsigned k, double *out) noexcept {
        return adn_sum_by_key_f64(x, keys, n, nkeys, k, out);
    }
    static adn_status segmented_cumsum(const double *in, double *out, const std::size_t *offsets, std::size_t nseg,
                                       unsigned k) noexcept {
        return adn_segmented_cumsum_f64(in, out, offsets, nseg, k);
    }
    static adn_status init(adn_acc_f64 *a, unsigned k) noexcept { return adn_acc_f64_init(a, k); }
    static adn_status add_segments(adn_acc_f64 *a, const double *x, const std::size_t *offsets,
                                   std::size_t nseg) noexcept {
        return adn_acc_f64_add_segments(a, x, offsets, nseg);
    }
    static adn_status add_by_key(adn_acc_f64 *a, std::size_t nkeys, const double *x, const std::int64_t *keys,
                                 std::size_t n) noexcept {
        return adn_acc_f64_add_by_key(a, nkeys, x, keys, n);
    }
    static adn_status add(adn_acc_f64 *a, double x) noexcept { return adn_acc_f64_add(a, x); }
    static adn_status add_array(adn_acc_f64 *a, const double *x, std::size_t n) noexcept {
        return adn_acc_f64_add_array(a, x, n);
    }
    static adn_status merge(adn_acc_f64 *a, const adn_acc_f64 *b) noexcept { return adn_acc_f64_merge(a, b); }
    static adn_status value(const adn_acc_f64 *a, double *out) noexcept { return adn_acc_f64_value(a, out); }
    static adn_status count(const adn_acc_f64 *a, std::uint64_t *out) noexcept {
        return adn_acc_f64_count(a, out);
    }
    static adn_status to_bytes(const adn_acc_f64 *a, std::uint8_t *buf, std::size_t cap,
                               std::size_t *len) noexcept {
        return adn_acc_f64_to_bytes(a, buf, cap, len);
    }
    static adn_status from_bytes(adn_acc_f64 *a, const std::uint8_t *b, std::size_t n) noexcept {
        return adn_acc_f64_from_bytes(a, b, n);
    }
};

template <>
struct traits<float> {
    static constexpr std::uint64_t capacity = ADN_CAPACITY_F32;
    static constexpr int max_fold = ADN_MAX_FOLD_F32;
    using acc_type = adn_acc_f32;
    static adn_status sum(const float *x, std::size_t n, unsigned k, float *out) noexcept {
        return adn_sum_f32_fold(x, n, k, out);
    }
    static adn_status cumsum(const float *in, float *out, std::size_t n, unsigned k) noexcept {
        return adn_cumsum_f32_fold(in, out, n, k);
    }
    static adn_status segmented_sum(const float *x, const std::size_t *offsets, std::size_t nseg, unsigned k,
                                    float *out) noexcept {
        return adn_segmented_sum_f32(x, offsets, nseg, k, out);
    }
    static adn_status sum_rows(const float *x, std::size_t rows, std::size_t cols, std::size_t stride, unsigned k,
                               float *out) noexcept {
        return adn_sum_rows_f32(x, rows, cols, stride, k, out);
    }
    static adn_status sum_by_key(const float *x, const std::int64_t *keys, std::size_t n, std::size_t nkeys,
                                 unsigned k, float *out) noexcept {
        return adn_sum_by_key_f32(x, keys, n, nkeys, k, out);
    }
    static adn_status segmented_cumsum(const float *in, float *out, const std::size_t *offsets, std::size_t nseg,
                                       unsigned k) noexcept {
        return adn_segmented_cumsum_f32(in, out, offsets, nseg, k);
    }
    static adn_status init(adn_acc_f32 *a, unsigned k) noexcept { return adn_acc_f32_init(a, k); }
    static adn_status add_segments(adn_acc_f32 *a, const float *x, const std::size_t *offsets,
                                   std::size_t nseg) noexcept {
        return adn_acc_f32_add_segments(a, x, offsets, nseg);
    }
    static adn_status add_by_key(adn_acc_f32 *a, std::size_t nkeys, const float *x, const std::int64_t *keys,
                                 std::size_t n) noexcept {
        return adn_acc_f32_add_by_key(a, nkeys, x, keys, n);
    }
    static adn_status add(adn_acc_f32 *a, float x) noexcept { return adn_acc_f32_add(a, x); }
    static adn_status add_array(adn_acc_f32 *a, const float *x, std::size_t n) noexcept {
        return adn_acc_f32_add_array(a, x, n);
    }
    static adn_status merge(adn_acc_f32 *a, const adn_acc_f32 *b) noexcept { return adn_acc_f32_merge(a, b); }
    static adn_status value(const adn_acc_f32 *a, float *out) noexcept { return adn_acc_f32_value(a, out); }
    static adn_status count(const adn_acc_f32 *a, std::uint64_t *out) noexcept {
        return adn_acc_f32_count(a, out);
    }
    static adn_status to_bytes(const adn_acc_f32 *a, std::uint8_t *buf, std::size_t cap,
                               std::size_t *len) noexcept {
        return adn_acc_f32_to_bytes(a, buf, cap, len);
    }
    static adn_status from_bytes(adn_acc_f32 *a, const std::uint8_t *b, std::size_t n) noexcept {
        return adn_acc_f32_from_bytes(a, b, n);
    }
};

template <typename T>
inline constexpr bool is_supported = std::is_same_v<T, float> || std::is_same_v<T, double>;
} // namespace detail

/// The most values of type T (float or double) one sum may have and keep the guarantee:
/// 4,294,966,784 (float), 9,223,372,036,854,773,760 (double).
template <typename T>
inline constexpr std::uint64_t max_reproducible_count = detail::traits<T>::capacity;

/// The largest fold of type T: 21 (float), 52 (double).
template <typename T>
inline constexpr int max_fold = detail::traits<T>::max_fold;

/// A failed call: what() is adn_status_string(status()).
class error : public std::runtime_error {
public:
    explicit error(adn_status status) : std::runtime_error(adn_status_string(status)), status_(status) {}
    /// The status code (ADN_NULL_POINTER, ADN_CAPACITY_EXCEEDED, ...).
    adn_status status() const noexcept { return status_; }

private:
    adn_status status_;
};

namespace detail {
inline void check(adn_status s) {
    if (s != ADN_OK) throw error(s);
}
} // namespace detail

/// The reproducible sum of arr[0..N) at fold K (default 3). T (float or double) is deduced.
/// Throws adn::error (ADN_NULL_POINTER if arr is NULL and N > 0, ADN_CAPACITY_EXCEEDED if N
/// passes max_reproducible_count<T>).
template <int K = 3, typename T>
T sum(const T *arr, std::size_t N) {
    static_assert(detail::is_supported<T>, "adn::sum: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>, "adn::sum: fold K must be in 2..21 (float) or 2..52 (double)");
    T out{};
    detail::check(detail::traits<T>::sum(arr, N, static_cast<unsigned>(K), &out));
    return out;
}

/// The reproducible cumulative sum at fold K: output[i] gets the bits of
/// sum<K>(input, i + 1). input == output is allowed (in place); any other overlap throws
/// adn::error with ADN_OVERLAP before anything is written.
template <int K = 3, typename T>
void cumsum(const T *input, T *output, std::size_t N) {
    static_assert(detail::is_supported<T>, "adn::cumsum: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>, "adn::cumsum: fold K must be in 2..21 (float) or 2..52 (double)");
    detail::check(detail::traits<T>::cumsum(input, output, N, static_cast<unsigned>(K)));
}

/// The reproducible sum of each segment at fold K: output[i] gets the bits of
/// sum<K>(input + offsets[i], offsets[i + 1] - offsets[i]). offsets holds nseg + 1 entries:
/// 0, never decreasing, and the last is the number of values (ADN_INVALID_OFFSETS otherwise).
template <int K = 3, typename T>
void segmented_sum(const T *input, const std::size_t *offsets, std::size_t nseg, T *output) {
    static_assert(detail::is_supported<T>, "adn::segmented_sum: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>, "adn::segmented_sum: fold K must be in 2..21 (float) or 2..52 (double)");
    detail::check(detail::traits<T>::segmented_sum(input, offsets, nseg, static_cast<unsigned>(K), output));
}

/// The reproducible sum of each row of a row-major matrix at fold K: output[r] gets the bits
/// of sum<K>(input + r * row_stride, cols). cols > row_stride throws (ADN_INVALID_STRIDE).
template <int K = 3, typename T>
void sum_rows(const T *input, std::size_t rows, std::size_t cols, std::size_t row_stride, T *output) {
    static_assert(detail::is_supported<T>, "adn::sum_rows: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>, "adn::sum_rows: fold K must be in 2..21 (float) or 2..52 (double)");
    detail::check(detail::traits<T>::sum_rows(input, rows, cols, row_stride, static_cast<unsigned>(K), output));
}

/// The reproducible sum of the values of each key at fold K: output[k] gets the bits of the
/// sum of every input[i] with keys[i] == k, for k < nkeys, whatever the order of the pairs.
/// A key outside 0..nkeys-1 throws (ADN_KEY_OUT_OF_RANGE) before anything is written.
template <int K = 3, typename T>
void sum_by_key(const T *input, const std::int64_t *keys, std::size_t N, std::size_t nkeys, T *output) {
    static_assert(detail::is_supported<T>, "adn::sum_by_key: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>, "adn::sum_by_key: fold K must be in 2..21 (float) or 2..52 (double)");
    detail::check(detail::traits<T>::sum_by_key(input, keys, N, nkeys, static_cast<unsigned>(K), output));
}

/// The reproducible cumulative sum of each segment at fold K, starting afresh at each
/// segment (offsets as for segmented_sum). input == output is allowed (in place).
template <int K = 3, typename T>
void segmented_cumsum(const T *input, T *output, const std::size_t *offsets, std::size_t nseg) {
    static_assert(detail::is_supported<T>, "adn::segmented_cumsum: T must be float or double");
    static_assert(K >= 2 && K <= max_fold<T>,
                  "adn::segmented_cumsum: fold K must be in 2..21 (float) or 2..52 (double)");
    detail::check(detail::traits<T>::segmented_cumsum(input, output, offsets, nseg, static_cast<unsigned>(K)));
}

/// A reproducible accumulator (value semantics; a plain copyable struct inside). The fold
/// is chosen at run time (default 3).
template <typename T>
class accumulator {
    static_assert(detail::is_supported<T>, "adn::accumulator: T must be float or double");
    using tr = detail::traits<T>;

public:
    explicit accumulator(unsigned fold = ADN_DEFAULT_FOLD) { detail::check(tr::init(&acc_, fold)); }

    /// Adds one value.
    accumulator &add(T x) {
        detail::check(tr::add(&acc_, x));
        return *this;
    }
    /// Adds n values.
    accumulator &add(const T *x, std::size_t n) {
        detail::check(tr::add_array(&acc_, x, n));
        return *this;
    }
    /// Adds another accumulator's values (same fold).
    accumulator &merge(const accumulator &other) {
        detail::check(tr::merge(&acc_, &other.acc_));
        return *this;
    }
    /// The sum so far.
    T value() const {
        T out{};
        detail::check(tr::value(&acc_, &out));
        return out;
    }
    /// The number of values added.
    std::uint64_t count() const {
        std::uint64_t n = 0;
        detail::check(tr::count(&acc_, &n));
        return n;
    }
    /// The portable byte encoding.
    std::vector<std::uint8_t> to_bytes() const {
        std::vector<std::uint8_t> buf(ADN_ACC_ENCODED_MAX);
        std::size_t len = 0;
        detail::check(tr::to_bytes(&acc_, buf.data(), buf.size(), &len));
        buf.resize(len);
        return buf;
    }
    /// An accumulator from its byte encoding (throws adn::error with ADN_BAD_ENCODING).
    static accumulator from_bytes(const std::uint8_t *bytes, std::size_t n) {
        accumulator a;
        detail::check(tr::from_bytes(&a.acc_, bytes, n));
        return a;
    }
    /// The C struct (for MPI and the C functions).
    typename tr::acc_type *c_struct() noexcept { return &acc_; }
    const typename tr::acc_type *c_struct() const noexcept { return &acc_; }

private:
    typename tr::acc_type acc_;
};

namespace detail {
/// An array of accumulator<T> as the C functions' array of structs (the class holds the
/// struct alone).
template <typename T>
typename traits<T>::acc_type *c_array(accumulator<T> *accs) noexcept {
    static_assert(sizeof(accumulator<T>) == sizeof(typename traits<T>::acc_type) &&
                      std::is_standard_layout<accumulator<T>>::value,
                  "adn::accumulator<T> is its C struct alone");
    return accs ? accs[0].c_struct() : nullptr;
}
} // namespace detail

/// Adds each segment's values to its own accumulator: accs[i] gains input[offsets[i]] to
/// input[offsets[i + 1] - 1], at its own fold (offsets as for segmented_sum). Shards added
/// call after call, or on ranks whose accumulator arrays are then merged, give each segment
/// the state of all its values. Throws before any accumulator changes.
template <typename T>
void add_segments(accumulator<T> *accs, const T *input, const std::size_t *offsets, std::size_t nseg) {
    detail::check(detail::traits<T>::add_segments(detail::c_array(accs), input, offsets, nseg));
}

/// Adds each input[i] to accs[keys[i]], at each accumulator's own fold; a key outside
/// 0..nkeys-1 throws (ADN_KEY_OUT_OF_RANGE) before any accumulator changes.
template <typename T>
void add_by_key(accumulator<T> *accs, std::size_t nkeys, const T *input, const std::int64_t *keys, std::size_t n) {
    detail::check(detail::traits<T>::add_by_key(detail::c_array(accs), nkeys, input, keys, n));
}

} // namespace adn

#endif // REPROSUM_HPP
