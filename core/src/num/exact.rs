//! Exact decimal digits: of an unsigned integer ([`push_u64`]), and of a double, computed with a
//! tiny base-10⁹ big integer ([`exact_decimal`]). Both the formatting (`toFixed` rounds the
//! exact expansion, `toString` rounds it to the fewest digits that read back) and the
//! correctly rounded parser (its slow path compares against it) stand on this file.

pub(crate) fn push_digits(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&d| char::from(d)));
}

/// Appends the decimal digits of `v` (integer formatting without `core::fmt`).
pub(crate) fn push_u64(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut used = 0usize;
    for slot in buf.iter_mut().rev() {
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
        used += 1;
        if v == 0 {
            break;
        }
    }
    let start = buf.len() - used;
    push_digits(out, buf.get(start..).unwrap_or(&[]));
}

/// Adds one unit in the last place to an ASCII digit string (an empty string is zero).
pub(crate) fn increment(digits: &mut Vec<u8>) {
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return;
        }
    }
    digits.insert(0, b'1');
}

/// The exact decimal expansion of a finite, non-negative double: `digits × 10^-frac`.
pub(crate) struct Exact {
    /// ASCII digits without leading zeros; empty for zero.
    pub(crate) digits: Vec<u8>,
    /// Number of fraction digits (digits after the decimal point).
    pub(crate) frac: usize,
}

impl Exact {
    pub(crate) fn of(abs: f64) -> Self {
        let bits = abs.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let fraction = bits & ((1u64 << 52) - 1);
        let (mantissa, exp) = if biased == 0 { (fraction, -1074) } else { (fraction | (1u64 << 52), biased - 1075) };
        Self::of_parts(mantissa, exp)
    }

    /// The exact decimal expansion of `mantissa × 2^exp`.
    fn of_parts(mut mantissa: u64, mut exp: i32) -> Self {
        if mantissa == 0 {
            return Self { digits: Vec::new(), frac: 0 };
        }
        let tz = mantissa.trailing_zeros();
        mantissa >>= tz;
        exp += i32::try_from(tz).unwrap_or(0); // tz <= 52
        let mut big = Big::from_u64(mantissa);
        let frac = if exp >= 0 {
            big.mul_pow2(exp.unsigned_abs());
            0
        } else {
            // m × 2^-k = m × 5^k / 10^k
            big.mul_pow5(exp.unsigned_abs());
            exp.unsigned_abs() as usize
        };
        Self { digits: big.to_ascii(), frac }
    }
}

/// The exact value of `mantissa × 2^exp` as `0.digits × 10^point` (`digits` ASCII, without
/// leading zeros; empty for zero). The correctly rounded parser compares against it.
pub(crate) fn exact_decimal(mantissa: u64, exp: i32) -> (Vec<u8>, i64) {
    let exact = Exact::of_parts(mantissa, exp);
    let point = i64::try_from(exact.digits.len()).unwrap_or(0) - i64::try_from(exact.frac).unwrap_or(0);
    (exact.digits, point)
}

/// A non-negative big integer in little-endian base-10⁹ limbs.
struct Big {
    limbs: Vec<u32>,
}

const LIMB_BASE: u64 = 1_000_000_000;

impl Big {
    fn from_u64(mut v: u64) -> Self {
        let mut limbs = Vec::with_capacity(90);
        while v != 0 {
            limbs.push((v % LIMB_BASE) as u32);
            v /= LIMB_BASE;
        }
        Self { limbs }
    }

    /// `self *= factor`; `factor` must fit in a `u32` (so every product fits a `u64`).
    fn mul_small(&mut self, factor: u32) {
        let mut carry: u64 = 0;
        for limb in &mut self.limbs {
            let t = u64::from(*limb) * u64::from(factor) + carry;
            *limb = (t % LIMB_BASE) as u32;
            carry = t / LIMB_BASE;
        }
        while carry != 0 {
            self.limbs.push((carry % LIMB_BASE) as u32);
            carry /= LIMB_BASE;
        }
    }

    fn mul_pow2(&mut self, mut k: u32) {
        while k >= 31 {
            self.mul_small(1 << 31);
            k -= 31;
        }
        self.mul_small(1 << k);
    }

    fn mul_pow5(&mut self, mut k: u32) {
        const FIVE_13: u32 = 1_220_703_125; // 5^13, the largest power of 5 below 2^32
        while k >= 13 {
            self.mul_small(FIVE_13);
            k -= 13;
        }
        self.mul_small(5u32.pow(k));
    }

    /// Decimal digits (ASCII) without leading zeros; empty for zero.
    fn to_ascii(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.limbs.len() * 9);
        let mut limbs = self.limbs.iter().rev();
        if let Some(&top) = limbs.next() {
            let mut s = String::new();
            push_u64(&mut s, u64::from(top));
            out.extend_from_slice(s.as_bytes());
        }
        for &limb in limbs {
            let mut chunk = [b'0'; 9];
            let mut v = limb;
            for slot in chunk.iter_mut().rev() {
                *slot = b'0' + (v % 10) as u8;
                v /= 10;
            }
            out.extend_from_slice(&chunk);
        }
        out
    }
}
