//! A script's output as it arrives: bytes turned into text (a character split across two reads
//! is kept until it is whole), line ends made `\n`, and the text kept up to
//! `sandbox.max_output_chars` with a note saying where it was cut.

/// One stream (stdout or stderr) of one run.
#[derive(Debug)]
pub struct Capture {
    text: String,
    chars: usize,
    limit: usize,
    cut: bool,
    /// Bytes of a character that has not fully arrived yet.
    partial: Vec<u8>,
    /// The last character was `\r`: a `\n` right after it belongs to the same line end.
    after_cr: bool,
}

impl Capture {
    pub fn new(limit: usize) -> Self {
        Self {
            text: String::new(),
            chars: 0,
            limit,
            cut: false,
            partial: Vec::new(),
            after_cr: false,
        }
    }

    /// The note appended where the output was cut.
    pub fn note(limit: usize) -> String {
        format!("[output cut after {limit} characters]")
    }

    /// Takes what the process wrote; returns the new text that was kept (with the note, the
    /// moment the limit is reached), for streaming.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        self.partial.extend_from_slice(bytes);
        let decoded = self.decode();
        self.keep(&decoded)
    }

    /// The whole kept text once the stream has ended (an unfinished character becomes `�`),
    /// and what was added since the last push.
    pub fn finish(mut self) -> (String, String) {
        let rest = if self.partial.is_empty() {
            String::new()
        } else {
            let bytes = std::mem::take(&mut self.partial);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let normalized = self.normalize(&text);
            self.keep(&normalized)
        };
        (self.text, rest)
    }

    /// Decodes the whole characters at the front of `partial`, leaving an unfinished one.
    fn decode(&mut self) -> String {
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.partial) {
                Ok(text) => {
                    out.push_str(text);
                    self.partial.clear();
                    break;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    out.push_str(&String::from_utf8_lossy(&self.partial[..valid]));
                    match error.error_len() {
                        // Not a character at all: shown as one replacement character.
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            self.partial.drain(..valid + bad);
                        }
                        // The rest of the character comes with the next read.
                        None => {
                            self.partial.drain(..valid);
                            break;
                        }
                    }
                }
            }
        }
        self.normalize(&out)
    }

    /// `\r\n` and a lone `\r` become `\n`, also when the pair is split across reads.
    fn normalize(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match c {
                '\r' => {
                    out.push('\n');
                    self.after_cr = true;
                }
                '\n' if self.after_cr => self.after_cr = false,
                c => {
                    out.push(c);
                    self.after_cr = false;
                }
            }
        }
        out
    }

    fn keep(&mut self, text: &str) -> String {
        if self.cut || text.is_empty() {
            return String::new();
        }
        let room = self.limit - self.chars;
        let count = text.chars().count();
        if count <= room {
            self.text.push_str(text);
            self.chars += count;
            return text.to_owned();
        }
        let mut kept: String = text.chars().take(room).collect();
        self.chars = self.limit;
        self.cut = true;
        // The note starts a line of its own.
        let ends_line = if kept.is_empty() {
            self.text.ends_with('\n')
        } else {
            kept.ends_with('\n')
        };
        if !ends_line {
            kept.push('\n');
        }
        kept.push_str(&Self::note(self.limit));
        self.text.push_str(&kept);
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends_become_newlines_even_split_across_reads() {
        let mut c = Capture::new(100);
        assert_eq!(c.push(b"a\r\nb\r"), "a\nb\n");
        assert_eq!(c.push(b"\nc\rd"), "c\nd");
        let (text, rest) = c.finish();
        assert_eq!(text, "a\nb\nc\nd");
        assert_eq!(rest, "");
    }

    #[test]
    fn a_character_split_across_reads_waits_until_it_is_whole() {
        let mut c = Capture::new(100);
        let bytes = "é€".as_bytes();
        assert_eq!(c.push(&bytes[..1]), "");
        assert_eq!(c.push(&bytes[1..3]), "é");
        assert_eq!(c.push(&bytes[3..]), "€");
        assert_eq!(c.push(b"\xffx"), "\u{FFFD}x");
        let mut c2 = Capture::new(100);
        c2.push(&bytes[..1]);
        let (text, rest) = c2.finish();
        assert_eq!((text.as_str(), rest.as_str()), ("\u{FFFD}", "\u{FFFD}"));
    }

    #[test]
    fn output_past_the_limit_is_cut_with_a_note_once() {
        let mut c = Capture::new(5);
        assert_eq!(c.push(b"abc"), "abc");
        assert_eq!(c.push(b"defgh"), "de\n[output cut after 5 characters]");
        assert_eq!(c.push(b"more"), "");
        let (text, _) = c.finish();
        assert_eq!(text, "abcde\n[output cut after 5 characters]");

        let mut exact = Capture::new(4);
        exact.push(b"abc\n");
        assert_eq!(exact.push(b"x"), "[output cut after 4 characters]");
        assert_eq!(exact.finish().0, "abc\n[output cut after 4 characters]");
    }
}
