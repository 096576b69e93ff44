//! The statistics the policies stand on, in plain f64 arithmetic: the log-gamma function,
//! the regularized incomplete beta function and its quantile, the binomial distribution
//! function and the Wilson score interval. (Used by the pyramid policy and its calibration;
//! any later loop calibration stands on the same functions.)

/// ln Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms; ~1e-15 relative).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Gamma(x) = Gamma(x + 1) / x keeps the series in its accurate range (x > 0 here).
        return ln_gamma(x + 1.0) - x.ln();
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// Continued fraction of the incomplete beta (modified Lentz).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=500 {
        let m = m as f64;
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + aa * d);
        c = guard(1.0 + aa / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// The regularized incomplete beta I_x(a, b), a, b > 0.
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    incomplete_beta_with(a, b, x, ln_beta(a, b))
}

fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// I_x(a, b) given ln B(a, b) (a quantile search computes it once).
fn incomplete_beta_with(a: f64, b: f64, x: f64, ln_b: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (a * x.ln() + b * (1.0 - x).ln() - ln_b).exp();
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// The `level` quantile of Beta(a, b): x with I_x(a, b) = level, by Newton steps kept
/// inside a bisection bracket (a handful of steps to ~1e-15 where 64 plain bisection steps
/// would be needed; the replay of a large history calls this a lot).
pub fn beta_quantile(a: f64, b: f64, level: f64) -> f64 {
    let ln_b = ln_beta(a, b);
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    let mut x = (a / (a + b)).clamp(1e-12, 1.0 - 1e-12);
    for _ in 0..200 {
        let f = incomplete_beta_with(a, b, x, ln_b) - level;
        if f == 0.0 {
            return x;
        }
        if f < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let density = ((a - 1.0) * x.ln() + (b - 1.0) * (1.0 - x).ln() - ln_b).exp();
        let mut next = x - f / density;
        if !(next > lo && next < hi) {
            next = 0.5 * (lo + hi);
        }
        if (next - x).abs() <= 1e-15 * x.max(1e-300) || hi - lo <= 1e-300 {
            return next;
        }
        x = next;
    }
    x
}

/// P(X <= k) for X ~ Binomial(n, p), summed in log space.
pub fn binomial_cdf(k: u64, n: u64, p: f64) -> f64 {
    if k >= n || p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    let ln_choose = |i: u64| ln_gamma(n as f64 + 1.0) - ln_gamma(i as f64 + 1.0) - ln_gamma((n - i) as f64 + 1.0);
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let total: f64 = (0..=k).map(|i| (ln_choose(i) + i as f64 * lp + (n - i) as f64 * lq).exp()).sum();
    total.min(1.0)
}

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score 95% interval for `k` successes out of `n` (None when n = 0).
pub fn wilson_interval(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 || k > n {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    Some(((center - half).max(0.0), (center + half).min(1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_functions_match_known_values() {
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
        // Beta(1, 1) is uniform; Beta(1, b) has quantile 1 - (1 - q)^(1/b).
        assert!((beta_quantile(1.0, 1.0, 0.95) - 0.95).abs() < 1e-12);
        assert!((beta_quantile(1.0, 20.0, 0.95) - (1.0 - 0.05f64.powf(1.0 / 20.0))).abs() < 1e-12);
        assert!((binomial_cdf(0, 10, 0.1) - 0.9f64.powi(10)).abs() < 1e-12);
        assert!((binomial_cdf(1, 10, 0.1) - (0.9f64.powi(10) + 10.0 * 0.1 * 0.9f64.powi(9))).abs() < 1e-12);
        let (lo, hi) = wilson_interval(0, 10).unwrap_or((1.0, 0.0));
        assert!(lo == 0.0 && (hi - 0.277_533_7).abs() < 1e-6, "{hi}");
        assert_eq!(wilson_interval(0, 0), None);
    }
}
