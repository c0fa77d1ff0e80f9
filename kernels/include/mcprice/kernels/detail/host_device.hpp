#pragma once
// Per-path maths is compiled twice: by nvcc for the GPU and by the host compiler for the CPU
// backend. These macros let one source serve both.
// MCPRICE_CALLED: a function the GPU calls rather than inlines, where many call sites would
// each keep their own frame of local arrays (the worst-of scenario walks).
#if defined(__CUDACC__)
#define MCPRICE_HD __host__ __device__
#define MCPRICE_INLINE __forceinline__
#define MCPRICE_CALLED __noinline__
#else
#define MCPRICE_HD
#define MCPRICE_INLINE inline
#define MCPRICE_CALLED inline
#endif

// Only the device pass understands "#pragma unroll"; the host pass would warn about it.
#if defined(__CUDA_ARCH__)
#define MCPRICE_UNROLL _Pragma("unroll")
#else
#define MCPRICE_UNROLL
#endif
