#include "strata/half.h"

#include <immintrin.h>

namespace strata {

float F16ToF32(uint16_t h) { return _cvtsh_ss(h); }
uint16_t F32ToF16(float f) { return _cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT); }

}  // namespace strata
