//! The logistic function from exactly rounded IEEE 754 operations only, so that training gives
//! the same bits on every machine (the platform `exp` differs between C libraries).

/// Beyond `|x| > MAX_EXP` the logistic function is taken as 0 or 1 (word2vec's clipping).
pub(crate) const MAX_EXP: f64 = 6.0;

/// `e^x` for `|x| <= 6` to about 1e-12 relative: `e^(x/64)` by its Taylor polynomial of degree
/// 8 (`|x/64| <= 0.094`, remainder below 1e-14), squared six times.
fn exp_small(x: f64) -> f64 {
    let y = x / 64.0; // exact: a power of two
    let mut p = 1.0 / 40320.0;
    for k in [5040.0, 720.0, 120.0, 24.0, 6.0, 2.0, 1.0, 1.0] {
        p = p * y + 1.0 / k;
    }
    for _ in 0..6 {
        p *= p;
    }
    p
}

/// `1 / (1 + e^-x)`, clipped to 0 and 1 beyond `|x| > MAX_EXP`.
pub(crate) fn sigmoid(x: f32) -> f32 {
    let x = x as f64;
    if x > MAX_EXP {
        1.0
    } else if x < -MAX_EXP {
        0.0
    } else {
        (1.0 / (1.0 + exp_small(-x))) as f32
    }
}

/// A uniform `f64` in `[0, 1)` from the top 53 bits of `r`.
#[inline]
pub(crate) fn unit(r: u64) -> f64 {
    (r >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::{exp_small, sigmoid};

    #[test]
    fn close_to_std() {
        let mut x = -6.0;
        while x <= 6.0 {
            let (ours, std) = (exp_small(x), x.exp());
            assert!(
                (ours - std).abs() <= 1e-11 * std,
                "exp({x}) = {ours}, std {std}"
            );
            x += 0.001;
        }
        assert_eq!(sigmoid(0.0), 0.5);
        assert_eq!(sigmoid(7.0), 1.0);
        assert_eq!(sigmoid(-7.0), 0.0);
        assert!((sigmoid(1.0) - 0.731_058_6).abs() < 1e-6);
    }
}
