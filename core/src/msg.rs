//! Messages built in `const fn`: a const panic can only print a `&str`, so text is assembled
//! byte by byte into a fixed buffer.

/// A fixed-capacity UTF-8 buffer usable in `const fn`. Text past the capacity is cut at a
/// character boundary and marked with `...`.
#[derive(Clone, Copy)]
pub struct Buf<const N: usize> {
    bytes: [u8; N],
    len: usize,
    truncated: bool,
}

impl<const N: usize> Buf<N> {
    /// An empty buffer.
    pub const fn new() -> Self {
        Buf {
            bytes: [0; N],
            len: 0,
            truncated: false,
        }
    }

    /// Appends `s`, or as much of it as fits.
    pub const fn push(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        let len_i = b.len();
        while i < len_i {
            // Stop before a character that would not fit whole (keep 3 bytes for "...").
            let width = utf8_width(b[i]);
            if self.truncated || self.len + width + 3 > N {
                self.truncated = true;
                return;
            }
            let mut k = 0;
            while k < width {
                self.bytes[self.len] = b[i + k];
                self.len += 1;
                k += 1;
            }
            i += width;
        }
    }

    /// Appends UTF-8 bytes (a name taken from a source or schema string).
    pub const fn push_bytes(&mut self, b: &[u8]) {
        match core::str::from_utf8(b) {
            Ok(s) => self.push(s),
            Err(_) => self.push("\u{fffd}"),
        }
    }

    /// Appends a signed decimal number.
    pub const fn push_i64(&mut self, n: i64) {
        if n < 0 {
            self.push("-");
        }
        self.push_u64(n.unsigned_abs());
    }

    /// The length so far, in bytes.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether nothing was written.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a decimal number.
    pub const fn push_u64(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while count > 0 {
            count -= 1;
            let d = [digits[count]];
            match core::str::from_utf8(&d) {
                Ok(s) => self.push(s),
                Err(_) => unreachable!(),
            }
        }
    }

    /// Drops the text after the first `len` bytes (a length [`Buf::len`] returned earlier).
    pub const fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.len = len;
            self.truncated = false;
        }
    }

    /// The text so far.
    pub const fn as_str(&self) -> &str {
        let (head, _) = self.bytes.split_at(self.len);
        match core::str::from_utf8(head) {
            Ok(s) => s,
            Err(_) => "<invalid message>",
        }
    }

    /// The finished message: the text, marked with `...` where it was cut. The const checks
    /// return it as their error, and the const item the derive emits panics with its
    /// [`Buf::as_str`] (a compile error showing it, reported in that item, with no frames of the
    /// check's functions).
    pub const fn finish(mut self) -> Self {
        if self.truncated {
            self.truncated = false;
            let mut k = 0;
            while k < 3 {
                self.bytes[self.len] = b'.';
                self.len += 1;
                k += 1;
            }
        }
        self
    }
}

impl<const N: usize> Default for Buf<N> {
    fn default() -> Self {
        Self::new()
    }
}

const fn utf8_width(first: u8) -> usize {
    if first < 0x80 {
        1
    } else if first >= 0xF0 {
        4
    } else if first >= 0xE0 {
        3
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::Buf;

    #[test]
    fn builds_text_and_numbers() {
        let mut b = Buf::<64>::new();
        b.push("cost ");
        b.push_u64(1_234_567);
        assert_eq!(b.as_str(), "cost 1234567");
    }

    #[test]
    fn cuts_at_character_boundary() {
        let mut b = Buf::<8>::new();
        b.push("aé€xyz");
        assert_eq!(b.as_str(), "aé");
        // The message a check returns is marked where it was cut.
        assert_eq!(b.finish().as_str(), "aé...");
    }
}
