//! The core's tests' random inputs: xorshift64, so every run draws the same sequence from a
//! seed. Shared by the test files that generate varied records (`mod test_rng;`); each uses
//! the draws it needs.
#![allow(dead_code)]

/// A deterministic generator; the state is the seed (never 0).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A draw in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A draw in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `items`, owned.
    pub fn pick(&mut self, items: &[&str]) -> String {
        items[self.below(items.len() as u64) as usize].to_string()
    }
}
