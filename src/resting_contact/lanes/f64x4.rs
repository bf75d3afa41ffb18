//! Four f64 lanes ([`F4`]), their masks ([`M4`]), and the three-vectors and matrices of four
//! lanes ([`V3`], [`M3`]) the lanes sweep is written in. Every operation is the IEEE one of
//! each lane in turn, in the order glam's `DVec3` and `DMat3` take them (a dot product
//! `(x·x′ + y·y′) + z·z′`, a matrix times a vector by columns), so a lane's arithmetic is that
//! of the scalar sweep bit for bit; the compiler turns the per-lane loops into vector
//! instructions of whatever width the function it is inlined into was compiled for
//! (`kernel`'s dispatch), and never fuses a multiply and an add (no fast-math in Rust).

use glam::{DMat3, DVec3};
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

/// Lanes per group.
pub(crate) const LANES: usize = 4;

/// Four f64 lanes.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct F4(pub(crate) [f64; LANES]);

/// A mask of four lanes: all bits set where true, as a vector compare leaves it (so that a
/// select is a blend, not a conversion from bytes).
#[derive(Clone, Copy, Default, Debug)]
#[repr(C, align(32))]
pub(crate) struct M4(pub(crate) [u64; LANES]);

macro_rules! lanewise {
    ($a:expr, $b:expr, $op:tt) => {{
        let (a, b) = ($a, $b);
        F4([a.0[0] $op b.0[0], a.0[1] $op b.0[1], a.0[2] $op b.0[2], a.0[3] $op b.0[3]])
    }};
}

/// `[f(0), f(1), f(2), f(3)]` written out, which the vectoriser takes more reliably than
/// `std::array::from_fn`.
macro_rules! each {
    (|$i:ident| $e:expr) => {{
        [
            {
                let $i = 0;
                $e
            },
            {
                let $i = 1;
                $e
            },
            {
                let $i = 2;
                $e
            },
            {
                let $i = 3;
                $e
            },
        ]
    }};
}

macro_rules! compare {
    ($a:expr, $b:expr, $op:tt) => {{
        let (a, b) = ($a, $b);
        M4(each!(|i| ((a.0[i] $op b.0[i]) as u64).wrapping_neg()))
    }};
}

impl F4 {
    pub(crate) const ZERO: F4 = F4([0.0; LANES]);

    /// Every lane `x`.
    #[inline(always)]
    pub(crate) fn splat(x: f64) -> F4 {
        F4([x; LANES])
    }

    /// Lane by lane `f64::max` (a NaN lane takes the other operand).
    #[inline(always)]
    pub(crate) fn max(self, o: F4) -> F4 {
        F4(each!(|i| self.0[i].max(o.0[i])))
    }

    /// Lane by lane `f64::min`.
    #[inline(always)]
    pub(crate) fn min(self, o: F4) -> F4 {
        F4(each!(|i| self.0[i].min(o.0[i])))
    }

    #[inline(always)]
    pub(crate) fn sqrt(self) -> F4 {
        F4(each!(|i| self.0[i].sqrt()))
    }

    #[inline(always)]
    pub(crate) fn abs(self) -> F4 {
        F4(each!(|i| self.0[i].abs()))
    }

    /// Lane by lane `f64::copysign`.
    #[inline(always)]
    pub(crate) fn copysign(self, sign: F4) -> F4 {
        F4(each!(|i| self.0[i].copysign(sign.0[i])))
    }

    #[inline(always)]
    pub(crate) fn gt(self, o: F4) -> M4 {
        compare!(self, o, >)
    }

    /// Lanes that are not `<= o` (greater, or NaN).
    #[inline(always)]
    pub(crate) fn not_le(self, o: F4) -> M4 {
        M4(each!(|i| {
            let not_le = !matches!(
                self.0[i].partial_cmp(&o.0[i]),
                Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
            );
            (not_le as u64).wrapping_neg()
        }))
    }

    #[inline(always)]
    pub(crate) fn ne(self, o: F4) -> M4 {
        compare!(self, o, !=)
    }

    /// The largest lane (the lanes are residuals: non-negative, no NaN).
    #[inline(always)]
    pub(crate) fn reduce_max(self) -> f64 {
        self.0[0].max(self.0[1]).max(self.0[2].max(self.0[3]))
    }
}

impl M4 {
    #[inline(always)]
    pub(crate) fn and(self, o: M4) -> M4 {
        M4(each!(|i| self.0[i] & o.0[i]))
    }

    #[inline(always)]
    pub(crate) fn or(self, o: M4) -> M4 {
        M4(each!(|i| self.0[i] | o.0[i]))
    }

    #[inline(always)]
    pub(crate) fn any(self) -> bool {
        (self.0[0] | self.0[1] | self.0[2] | self.0[3]) != 0
    }
}

/// `x` where `m`, else `y`, lane by lane.
#[inline(always)]
pub(crate) fn select(m: M4, x: F4, y: F4) -> F4 {
    F4(each!(|i| {
        f64::from_bits((x.0[i].to_bits() & m.0[i]) | (y.0[i].to_bits() & !m.0[i]))
    }))
}

impl Add for F4 {
    type Output = F4;
    #[inline(always)]
    fn add(self, o: F4) -> F4 {
        lanewise!(self, o, +)
    }
}

impl Sub for F4 {
    type Output = F4;
    #[inline(always)]
    fn sub(self, o: F4) -> F4 {
        lanewise!(self, o, -)
    }
}

impl Mul for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, o: F4) -> F4 {
        lanewise!(self, o, *)
    }
}

impl Div for F4 {
    type Output = F4;
    #[inline(always)]
    fn div(self, o: F4) -> F4 {
        lanewise!(self, o, /)
    }
}

impl Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        F4(each!(|i| -self.0[i]))
    }
}

impl AddAssign for F4 {
    #[inline(always)]
    fn add_assign(&mut self, o: F4) {
        *self = *self + o;
    }
}

/// The operations of four f64 lanes, each lane's the IEEE one: [`F4`] (arrays the compiler may
/// vectorise) and, on x86-64 with AVX2, `avx2::R4` (one 256-bit register each).
pub(crate) trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    /// The lane type's mask.
    type Mask: Copy;
    fn zero() -> Self;
    fn splat(x: f64) -> Self;
    fn load(x: &F4) -> Self;
    fn store(self, to: &mut F4);
    fn load_mask(m: &M4) -> Self::Mask;
    /// `f64::max` and `f64::min` lane by lane, as x86-64 computes them (a NaN first operand
    /// takes the second; otherwise the second where it is greater, or less).
    fn max(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    fn abs(self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn neg(self) -> Self;
    fn gt(self, o: Self) -> Self::Mask;
    fn ne(self, o: Self) -> Self::Mask;
    /// Lanes that are not `<= o` (greater, or NaN).
    fn not_le(self, o: Self) -> Self::Mask;
    fn select(m: Self::Mask, x: Self, y: Self) -> Self;
    fn and(m: Self::Mask, o: Self::Mask) -> Self::Mask;
    fn or(m: Self::Mask, o: Self::Mask) -> Self::Mask;
    fn any(m: Self::Mask) -> bool;
    /// The largest lane (the lanes are residuals: non-negative, no NaN).
    fn reduce_max(self) -> f64;
}

impl Lane for F4 {
    type Mask = M4;
    #[inline(always)]
    fn zero() -> Self {
        F4::ZERO
    }
    #[inline(always)]
    fn splat(x: f64) -> Self {
        F4::splat(x)
    }
    #[inline(always)]
    fn load(x: &F4) -> Self {
        *x
    }
    #[inline(always)]
    fn store(self, to: &mut F4) {
        *to = self;
    }
    #[inline(always)]
    fn load_mask(m: &M4) -> M4 {
        *m
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        F4::max(self, o)
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        F4::min(self, o)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        F4::sqrt(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F4::abs(self)
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        F4::copysign(self, sign)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        -self
    }
    #[inline(always)]
    fn gt(self, o: Self) -> M4 {
        F4::gt(self, o)
    }
    #[inline(always)]
    fn ne(self, o: Self) -> M4 {
        F4::ne(self, o)
    }
    #[inline(always)]
    fn not_le(self, o: Self) -> M4 {
        F4::not_le(self, o)
    }
    #[inline(always)]
    fn select(m: M4, x: Self, y: Self) -> Self {
        select(m, x, y)
    }
    #[inline(always)]
    fn and(m: M4, o: M4) -> M4 {
        m.and(o)
    }
    #[inline(always)]
    fn or(m: M4, o: M4) -> M4 {
        m.or(o)
    }
    #[inline(always)]
    fn any(m: M4) -> bool {
        m.any()
    }
    #[inline(always)]
    fn reduce_max(self) -> f64 {
        F4::reduce_max(self)
    }
}

/// Three-vectors of four lanes.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct V3<T = F4> {
    pub(crate) x: T,
    pub(crate) y: T,
    pub(crate) z: T,
}

impl V3 {
    pub(crate) const ZERO: V3 = V3 {
        x: F4::ZERO,
        y: F4::ZERO,
        z: F4::ZERO,
    };

    /// Lane `i` as a `DVec3`.
    #[inline(always)]
    pub(crate) fn lane(&self, i: usize) -> DVec3 {
        DVec3::new(self.x.0[i], self.y.0[i], self.z.0[i])
    }

    /// Sets lane `i` to `v`.
    #[inline(always)]
    pub(crate) fn set_lane(&mut self, i: usize, v: DVec3) {
        self.x.0[i] = v.x;
        self.y.0[i] = v.y;
        self.z.0[i] = v.z;
    }
}

impl<T: Lane> V3<T> {
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        V3 {
            x: T::zero(),
            y: T::zero(),
            z: T::zero(),
        }
    }

    #[inline(always)]
    pub(crate) fn load(v: &V3) -> Self {
        V3 {
            x: T::load(&v.x),
            y: T::load(&v.y),
            z: T::load(&v.z),
        }
    }

    #[inline(always)]
    pub(crate) fn store(self, to: &mut V3) {
        self.x.store(&mut to.x);
        self.y.store(&mut to.y);
        self.z.store(&mut to.z);
    }

    /// As `DVec3::dot`: `(x·x′ + y·y′) + z·z′`.
    #[inline(always)]
    pub(crate) fn dot(self, o: V3<T>) -> T {
        (self.x * o.x) + (self.y * o.y) + (self.z * o.z)
    }

    /// As `DVec3::cross`.
    #[inline(always)]
    pub(crate) fn cross(self, o: V3<T>) -> V3<T> {
        V3 {
            x: self.y * o.z - o.y * self.z,
            y: self.z * o.x - o.z * self.x,
            z: self.x * o.y - o.x * self.y,
        }
    }

    #[inline(always)]
    pub(crate) fn length_squared(self) -> T {
        self.dot(self)
    }

    /// Each component times `s`.
    #[inline(always)]
    pub(crate) fn scale(self, s: T) -> V3<T> {
        V3 {
            x: self.x * s,
            y: self.y * s,
            z: self.z * s,
        }
    }

    /// Each component over `s`.
    #[inline(always)]
    pub(crate) fn over(self, s: T) -> V3<T> {
        V3 {
            x: self.x / s,
            y: self.y / s,
            z: self.z / s,
        }
    }

    /// Any component not zero, lane by lane (as `DVec3 != DVec3::ZERO`).
    #[inline(always)]
    pub(crate) fn nonzero(self) -> T::Mask {
        let z = T::zero();
        T::or(T::or(self.x.ne(z), self.y.ne(z)), self.z.ne(z))
    }
}

/// `x` where `m`, else `y`, lane by lane.
#[inline(always)]
pub(crate) fn select3<T: Lane>(m: T::Mask, x: V3<T>, y: V3<T>) -> V3<T> {
    V3 {
        x: T::select(m, x.x, y.x),
        y: T::select(m, x.y, y.y),
        z: T::select(m, x.z, y.z),
    }
}

impl<T: Lane> Add for V3<T> {
    type Output = V3<T>;
    #[inline(always)]
    fn add(self, o: V3<T>) -> V3<T> {
        V3 {
            x: self.x + o.x,
            y: self.y + o.y,
            z: self.z + o.z,
        }
    }
}

impl<T: Lane> Sub for V3<T> {
    type Output = V3<T>;
    #[inline(always)]
    fn sub(self, o: V3<T>) -> V3<T> {
        V3 {
            x: self.x - o.x,
            y: self.y - o.y,
            z: self.z - o.z,
        }
    }
}

impl<T: Lane> Neg for V3<T> {
    type Output = V3<T>;
    #[inline(always)]
    fn neg(self) -> V3<T> {
        V3 {
            x: self.x.neg(),
            y: self.y.neg(),
            z: self.z.neg(),
        }
    }
}

/// 3×3 matrices of four lanes, by columns as `DMat3`.
#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct M3<T = F4> {
    pub(crate) x_axis: V3<T>,
    pub(crate) y_axis: V3<T>,
    pub(crate) z_axis: V3<T>,
}

impl<T: Lane> M3<T> {
    /// As `DMat3 * DVec3`: `(x_axis·v.x + y_axis·v.y) + z_axis·v.z`.
    #[inline(always)]
    pub(crate) fn mul_vec(&self, v: V3<T>) -> V3<T> {
        let mut res = self.x_axis.scale(v.x);
        res = res + self.y_axis.scale(v.y);
        res + self.z_axis.scale(v.z)
    }

    #[inline(always)]
    pub(crate) fn load(m: &M3) -> Self {
        M3 {
            x_axis: V3::load(&m.x_axis),
            y_axis: V3::load(&m.y_axis),
            z_axis: V3::load(&m.z_axis),
        }
    }
}

impl M3 {
    /// Sets lane `i` to `m`.
    #[inline(always)]
    pub(crate) fn set_lane(&mut self, i: usize, m: &DMat3) {
        self.x_axis.set_lane(i, m.x_axis);
        self.y_axis.set_lane(i, m.y_axis);
        self.z_axis.set_lane(i, m.z_axis);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lane's products are glam's, bit for bit.
    #[test]
    fn lanes_are_glam_bit_for_bit() {
        let a = DVec3::new(0.1, -2.3, 4.56789);
        let b = DVec3::new(-7.1e-3, 1.0 / 3.0, 2.0f64.sqrt());
        let m = DMat3::from_cols(a, b, a.cross(b) * 0.37);
        let (mut la, mut lb, mut lm) = (V3::ZERO, V3::ZERO, M3::default());
        for i in 0..LANES {
            la.set_lane(i, a * (i + 1) as f64);
            lb.set_lane(i, b);
            lm.set_lane(i, &m);
        }
        for i in 0..LANES {
            let ai = a * (i + 1) as f64;
            assert_eq!(la.dot(lb).0[i].to_bits(), ai.dot(b).to_bits());
            assert_eq!(la.cross(lb).lane(i), ai.cross(b));
            assert_eq!(lm.mul_vec(la).lane(i), m * ai);
        }
    }
}
