//! Random variations of a valid object, for the differentials between the typed path and the
//! manifest path.

use serde_json::{Value, json};

/// A small deterministic generator (xorshift64*), so that a failure is reproducible from the
/// case number alone.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Changes one place of `v` at random: a number moved or made large, a string shortened,
/// lengthened or swapped for another, a key removed, a list item repeated or removed, a value
/// made `null`.
pub fn mutate(v: &mut Value, rng: &mut Rng) {
    // Descend to a random node, stopping early now and then.
    let mut node = v;
    loop {
        let len = match &*node {
            Value::Object(m) => m.len(),
            Value::Array(a) => a.len(),
            _ => 0,
        };
        if len == 0 || rng.below(4) == 0 {
            break;
        }
        let i = rng.below(len);
        node = match node {
            Value::Object(m) => m.values_mut().nth(i).unwrap(),
            Value::Array(a) => &mut a[i],
            _ => unreachable!(),
        };
    }
    const STRINGS: [&str; 8] = ["", "x", "http", "debug", "1.2.3", "30s", "Always", "a-b"];
    match node {
        Value::Number(n) => {
            let i = n.as_i64().unwrap_or(1);
            *node = json!([i - 1, i + 1, -i, i * 100, 0][rng.below(5)]);
        }
        Value::String(s) => match rng.below(3) {
            0 => s.truncate(s.len() / 2),
            1 => s.push_str("-x"),
            _ => *s = STRINGS[rng.below(STRINGS.len())].to_string(),
        },
        Value::Bool(b) => *b = !*b,
        Value::Object(m) if !m.is_empty() => {
            let k = m.keys().nth(rng.below(m.len())).unwrap().clone();
            m.remove(&k);
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len());
            if rng.below(2) == 0 {
                a.push(a[i].clone());
            } else {
                a.remove(i);
            }
        }
        _ => *node = Value::Null,
    }
}
