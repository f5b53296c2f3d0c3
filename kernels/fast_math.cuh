// The special-function unit's instructions alone, with denormals flushed: rsqrtf(), __logf() and
// the like add a test and a rescaling for denormal arguments around each MUFU instruction (three
// instructions more each). For arguments known to be normal, these give the same bits as those.
#pragma once

namespace parasol {

// 1 / sqrt(x), rsqrt.approx (MUFU.RSQ): within 2^-22.9 of the root. x normal or zero.
__device__ __forceinline__ float rsqrt_ftz(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// log2(x), lg2.approx (MUFU.LG2): the instruction __logf() and __log2f() use. x normal.
__device__ __forceinline__ float lg2_ftz(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

}  // namespace parasol
