//! Four f64 lanes in one AVX register ([`R4`]): the lanes sweep's arithmetic on x86-64 hosts
//! with AVX2, chosen at run time (`kernel::sweep_groups`). Each operation is the IEEE one of
//! each lane, as the scalar sweep computes it: `max` and `min` as x86-64 lowers `f64::max`
//! and `f64::min` (a NaN first operand takes the second; otherwise `maxpd` with the operands
//! swapped), so the lanes give the scalar sweep's bits.
//!
//! Only ever called from functions compiled with AVX enabled (the intrinsics inline there).

use super::f64x4::{Lane, F4, M4};
use std::arch::x86_64::*;
use std::ops::{Add, Div, Mul, Sub};

/// Four f64 lanes in a register.
#[derive(Clone, Copy)]
pub(crate) struct R4(__m256d);

/// A mask of four lanes in a register (all bits set where true).
#[derive(Clone, Copy)]
pub(crate) struct Rm(__m256d);

macro_rules! binary {
    ($trait:ident, $fn:ident, $intrinsic:ident) => {
        impl $trait for R4 {
            type Output = R4;
            #[inline(always)]
            fn $fn(self, o: R4) -> R4 {
                // SAFETY: AVX is enabled where this runs (see the module doc).
                R4(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}

binary!(Add, add, _mm256_add_pd);
binary!(Sub, sub, _mm256_sub_pd);
binary!(Mul, mul, _mm256_mul_pd);
binary!(Div, div, _mm256_div_pd);

// SAFETY (every `unsafe` below): AVX is enabled where these run (see the module doc), and the
// loads and stores are of 32-byte aligned `F4`/`M4`.
impl Lane for R4 {
    type Mask = Rm;
    #[inline(always)]
    fn zero() -> Self {
        R4(unsafe { _mm256_setzero_pd() })
    }
    #[inline(always)]
    fn splat(x: f64) -> Self {
        R4(unsafe { _mm256_set1_pd(x) })
    }
    #[inline(always)]
    fn load(x: &F4) -> Self {
        R4(unsafe { _mm256_load_pd(x.0.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, to: &mut F4) {
        unsafe { _mm256_store_pd(to.0.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn load_mask(m: &M4) -> Rm {
        Rm(unsafe { _mm256_load_pd(m.0.as_ptr() as *const f64) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        unsafe {
            let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(self.0, self.0);
            R4(_mm256_blendv_pd(_mm256_max_pd(o.0, self.0), o.0, nan))
        }
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        unsafe {
            let nan = _mm256_cmp_pd::<_CMP_UNORD_Q>(self.0, self.0);
            R4(_mm256_blendv_pd(_mm256_min_pd(o.0, self.0), o.0, nan))
        }
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        R4(unsafe { _mm256_sqrt_pd(self.0) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        R4(unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0) })
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        unsafe {
            let s = _mm256_set1_pd(-0.0);
            R4(_mm256_or_pd(
                _mm256_andnot_pd(s, self.0),
                _mm256_and_pd(s, sign.0),
            ))
        }
    }
    #[inline(always)]
    fn neg(self) -> Self {
        R4(unsafe { _mm256_xor_pd(self.0, _mm256_set1_pd(-0.0)) })
    }
    #[inline(always)]
    fn gt(self, o: Self) -> Rm {
        Rm(unsafe { _mm256_cmp_pd::<_CMP_GT_OQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn ne(self, o: Self) -> Rm {
        Rm(unsafe { _mm256_cmp_pd::<_CMP_NEQ_UQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn not_le(self, o: Self) -> Rm {
        Rm(unsafe { _mm256_cmp_pd::<_CMP_NLE_UQ>(self.0, o.0) })
    }
    #[inline(always)]
    fn select(m: Rm, x: Self, y: Self) -> Self {
        R4(unsafe { _mm256_blendv_pd(y.0, x.0, m.0) })
    }
    #[inline(always)]
    fn and(m: Rm, o: Rm) -> Rm {
        Rm(unsafe { _mm256_and_pd(m.0, o.0) })
    }
    #[inline(always)]
    fn or(m: Rm, o: Rm) -> Rm {
        Rm(unsafe { _mm256_or_pd(m.0, o.0) })
    }
    #[inline(always)]
    fn any(m: Rm) -> bool {
        unsafe { _mm256_movemask_pd(m.0) != 0 }
    }
    #[inline(always)]
    fn reduce_max(self) -> f64 {
        let mut lanes = F4::ZERO;
        self.store(&mut lanes);
        lanes.reduce_max()
    }
}
