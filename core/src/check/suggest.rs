//! crd-cel's hints after a rejected rule (`help: did you mean ...`): the fields a selection
//! could have meant and functions available at a newer compatibility version.

use super::checker::Checker;
use crate::names::push_escaped;

impl<'a> Checker<'a> {
    /// `help:` lines for an undefined field: a close name, and the fields there are, both as
    /// a rule must spell them (escaped, `k8s.io/apiserver/pkg/cel/escaping.go`); names no rule can reach are left out.
    pub(super) const fn field_help(
        &mut self,
        schema: &'a crate::model::Schema<'a>,
        root: bool,
        field: &[u8],
    ) {
        if !self.report.help.is_empty() {
            return;
        }
        let keywords = self.compat >= 31;
        let mut best = crate::msg::Buf::<256>::new();
        let mut best_d = usize::MAX;
        let mut list = crate::msg::Buf::<512>::new();
        let mut count = 0;
        if root {
            list.push("apiVersion, kind, metadata");
            count = 3;
        }
        let mut stack: [&crate::model::Schema<'_>; 8] = [schema; 8];
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let s = stack[depth];
            let mut i = 0;
            let len_i = s.properties.len();
            while i < len_i {
                let p = &s.properties[i];
                let mut spelled = crate::msg::Buf::<256>::new();
                if push_escaped(&mut spelled, p.name.as_bytes(), keywords) {
                    if count > 0 {
                        list.push(", ");
                    }
                    list.push(spelled.as_str());
                    count += 1;
                    // Close to the JSON name or to its spelling: suggest the spelling.
                    let d_raw = distance(p.name.as_bytes(), field);
                    let d_spelled = distance(spelled.as_str().as_bytes(), field);
                    let d = if d_raw < d_spelled { d_raw } else { d_spelled };
                    if d < best_d {
                        best_d = d;
                        best = spelled;
                    }
                }
                i += 1;
            }
            let mut f = 0;
            let len_f = s.flatten.len();
            while f < len_f && depth < 8 {
                stack[depth] = s.flatten[f];
                depth += 1;
                f += 1;
            }
        }
        let h = &mut self.report.help;
        let limit = if field.len() < 4 { 1 } else { field.len() / 3 };
        if !best.is_empty() && best_d <= limit {
            h.push("help: did you mean '");
            h.push(best.as_str());
            h.push("'?\n");
        }
        if count == 0 {
            h.push("help: the type has no fields CEL can select");
        } else {
            h.push("help: the fields are: ");
            h.push(list.as_str());
        }
    }

    /// A hint when the function exists at a newer compatibility version than the target.
    pub(super) const fn newer_help(&mut self, name: &[u8]) {
        let f = match crate::env::find(name) {
            Some(f) => f,
            None => return,
        };
        let mut since = u8::MAX;
        let mut k = 0;
        let len_k = f.overloads.len();
        while k < len_k {
            let v = f.overloads[k].versions;
            if v.since > self.compat && v.since < since {
                since = v.since;
            }
            k += 1;
        }
        if since != u8::MAX && self.report.help.is_empty() {
            let h = &mut self.report.help;
            h.push("help: '");
            h.push_bytes(name);
            h.push("' is available to new rules from Kubernetes 1.");
            h.push_u64(since as u64 + 1);
            h.push(" (compatibility version 1.");
            h.push_u64(since as u64);
            h.push("); the targeted Kubernetes compiles new rules at 1.");
            h.push_u64(self.compat as u64);
        }
    }
}

/// Edit distance of two short names (for "did you mean"): insertions, deletions, substitutions
/// and swaps of neighbours (optimal string alignment); long names count as far apart.
const fn distance(a: &[u8], b: &[u8]) -> usize {
    const W: usize = 48;
    if a.len() >= W || b.len() >= W {
        return usize::MAX;
    }
    let mut prev2 = [0usize; W];
    let mut prev = [0usize; W];
    let mut cur = [0usize; W];
    let mut j = 0;
    while j <= b.len() {
        prev[j] = j;
        j += 1;
    }
    let mut i = 1;
    while i <= a.len() {
        cur[0] = i;
        let mut j = 1;
        while j <= b.len() {
            let cost = if a[i - 1].eq_ignore_ascii_case(&b[j - 1]) {
                0
            } else {
                1
            };
            let mut m = prev[j] + 1;
            if cur[j - 1] + 1 < m {
                m = cur[j - 1] + 1;
            }
            if prev[j - 1] + cost < m {
                m = prev[j - 1] + cost;
            }
            // Two neighbours swapped (`imgae`) count as one edit (Damerau).
            if i > 1
                && j > 1
                && a[i - 1].eq_ignore_ascii_case(&b[j - 2])
                && a[i - 2].eq_ignore_ascii_case(&b[j - 1])
                && prev2[j - 2] + 1 < m
            {
                m = prev2[j - 2] + 1;
            }
            cur[j] = m;
            j += 1;
        }
        prev2 = prev;
        prev = cur;
        i += 1;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::distance;

    // A swapped pair of letters is one edit, as a dropped or changed letter is.
    #[test]
    fn transpositions_count_as_one_edit() {
        assert_eq!(distance(b"imgae", b"image"), 1);
        assert_eq!(distance(b"iamge", b"image"), 1);
        assert_eq!(distance(b"imge", b"image"), 1);
        assert_eq!(distance(b"imagf", b"image"), 1);
        assert_eq!(distance(b"image", b"image"), 0);
        assert_eq!(distance(b"egami", b"image"), 4);
        assert_eq!(distance(b"ab", b"ba"), 1);
    }
}
