//! Document import, the text half of `POST /api/memories/import`: plain text out of a PDF, Word
//! (.docx), text or Markdown file, cut into chunks that are each fed to fact extraction.
//!
//! Everything here is synchronous and CPU-bound (PDF parsing can take seconds); callers on the
//! async runtime should run it in `spawn_blocking`.

use std::io::{Cursor, Read};

use quick_xml::events::Event;

use crate::error::{ImportError, MemoryError};
use crate::model::{Action, FactStatus, ImportResult, ReviewNote};
use crate::service::MemoryService;

/// The largest upload accepted (20 MB).
pub const MAX_IMPORT_BYTES: usize = 20 * 1024 * 1024;

/// Cap on the unpacked `word/document.xml`, so a small zip bomb cannot take all memory.
const MAX_DOCX_XML_BYTES: u64 = 200 * 1024 * 1024;

/// Chunk size used when the setting is 0.
const DEFAULT_CHUNK_CHARS: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    Pdf,
    Docx,
    Text,
    Markdown,
}

impl DocumentKind {
    /// The kind named by the file's extension (any case), or `None` for anything else.
    pub fn from_name(file_name: &str) -> Option<DocumentKind> {
        let (stem, extension) = base_name(file_name).rsplit_once('.')?;
        if stem.is_empty() {
            return None; // ".md" is a hidden file with no extension
        }
        match extension.to_ascii_lowercase().as_str() {
            "pdf" => Some(Self::Pdf),
            "docx" => Some(Self::Docx),
            "txt" => Some(Self::Text),
            "md" | "markdown" => Some(Self::Markdown),
            _ => None,
        }
    }
}

/// The text of an uploaded file, with `\n` line endings and no surrounding whitespace.
pub fn extract_text(file_name: &str, bytes: &[u8]) -> Result<String, ImportError> {
    // Size before type: a huge file is refused without looking inside it.
    if bytes.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge);
    }
    let name = base_name(file_name).to_owned();
    let kind =
        DocumentKind::from_name(&name).ok_or_else(|| ImportError::UnsupportedType(name.clone()))?;
    let raw = match kind {
        DocumentKind::Pdf => pdf_text(bytes),
        DocumentKind::Docx => docx_text(bytes),
        DocumentKind::Text | DocumentKind::Markdown => Some(plain_text(bytes)),
    }
    .ok_or_else(|| ImportError::Unreadable(name.clone()))?;
    let text = normalise_line_endings(&raw).trim().to_owned();
    if text.is_empty() {
        return Err(ImportError::Empty(name));
    }
    Ok(text)
}

/// The last path segment: browsers may send a full Windows path as the file name.
fn base_name(file_name: &str) -> &str {
    file_name
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(file_name)
        .trim()
}

fn pdf_text(bytes: &[u8]) -> Option<String> {
    // pdf-extract panics (unwrap, indexing) on some malformed files; a bad upload must not take
    // down the request. The default panic hook still logs the panic to stderr.
    match std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes)) {
        Ok(Ok(text)) => Some(text),
        Ok(Err(e)) => {
            tracing::debug!(error = %e, "PDF could not be parsed");
            None
        }
        Err(_) => {
            tracing::debug!("PDF parser panicked");
            None
        }
    }
}

fn docx_text(bytes: &[u8]) -> Option<String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    let mut xml = Vec::new();
    archive
        .by_name("word/document.xml")
        .ok()?
        .take(MAX_DOCX_XML_BYTES + 1)
        .read_to_end(&mut xml)
        .ok()?;
    if xml.len() as u64 > MAX_DOCX_XML_BYTES {
        return None; // refused rather than read in part
    }
    document_xml_text(&String::from_utf8_lossy(&xml))
}

/// The visible text of a WordprocessingML body.
fn document_xml_text(xml: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut out = String::new();
    let mut in_text = false;
    // `w:tab` also names tab stops inside paragraph properties; only a tab in a run is a character.
    let mut run_depth = 0usize;
    // Text boxes are stored twice (modern choice plus legacy fallback); read only the choice.
    let mut fallback_depth = 0usize;
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => match e.name().as_ref() {
                "mc:Fallback" => fallback_depth += 1,
                // A paragraph inside a paragraph (a text box) still starts on its own line.
                "w:p" if fallback_depth == 0 && !out.is_empty() && !out.ends_with('\n') => {
                    out.push('\n');
                }
                "w:r" => run_depth += 1,
                "w:t" => in_text = true,
                _ => {}
            },
            Event::End(e) => match e.name().as_ref() {
                "mc:Fallback" => fallback_depth = fallback_depth.saturating_sub(1),
                "w:r" => run_depth = run_depth.saturating_sub(1),
                "w:t" => in_text = false,
                "w:p" if fallback_depth == 0 => out.push('\n'),
                _ => {}
            },
            Event::Empty(e) if fallback_depth == 0 => match e.name().as_ref() {
                "w:tab" if run_depth > 0 => out.push('\t'),
                "w:br" | "w:cr" => out.push('\n'),
                "w:p" => out.push('\n'),
                _ => {}
            },
            Event::Text(t) if in_text && fallback_depth == 0 => out.push_str(&t.xml10_content()),
            Event::CData(t) if in_text && fallback_depth == 0 => out.push_str(&t.xml10_content()),
            // quick-xml hands `&amp;` and `&#169;` over as separate events.
            Event::GeneralRef(r) if in_text && fallback_depth == 0 => {
                match r.resolve_char_ref() {
                    Ok(Some(c)) => out.push(c),
                    // Word writes only the five XML entities; anything else is dropped.
                    _ => out.push_str(
                        quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                            .unwrap_or_default(),
                    ),
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Some(out)
}

/// UTF-8 (bad bytes replaced, BOM dropped); UTF-16 when it starts with a UTF-16 BOM, as
/// Windows Notepad's "Unicode" files do.
fn plain_text(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return String::from_utf8_lossy(rest).into_owned();
    }
    let utf16 = |rest: &[u8], from: fn([u8; 2]) -> u16| {
        let units = rest.chunks_exact(2).map(|p| from([p[0], p[1]]));
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    };
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return utf16(rest, u16::from_le_bytes);
    }
    if let Some(rest) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        return utf16(rest, u16::from_be_bytes);
    }
    String::from_utf8_lossy(bytes).into_owned()
}

/// `\r\n` and lone `\r` become `\n`.
fn normalise_line_endings(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// `text` cut into trimmed pieces of at most `chunk_chars` characters (0 means 1000). A cut goes
/// at a blank line where one falls in the second half of the piece, else after a sentence
/// there, else at the last whitespace, else (one long word) at exactly `chunk_chars`.
pub fn chunks(text: &str, chunk_chars: usize) -> Vec<String> {
    let limit = if chunk_chars == 0 {
        DEFAULT_CHUNK_CHARS
    } else {
        chunk_chars
    };
    let mut pieces = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let cut = cut_point(rest, limit);
        let piece = rest[..cut].trim_end();
        if !piece.is_empty() {
            pieces.push(piece.to_owned());
        }
        rest = rest[cut..].trim_start();
    }
    pieces
}

/// Byte offset at which to end the next piece of `text` (which starts with a non-space): a char
/// boundary, greater than 0, with at most `limit` characters before it.
fn cut_point(text: &str, limit: usize) -> usize {
    // Each candidate is (byte offset, chars before it); cutting there drops only whitespace.
    let mut paragraph = None;
    let mut sentence = None;
    let mut space = None;
    let mut blank_run = None; // the '\n' that began the current whitespace-only line
    let mut prev = None;
    // Chars are read up to index `limit` (one past what fits) so a break just after the last
    // character that fits still counts.
    for (count, (offset, c)) in text
        .char_indices()
        .enumerate()
        .take(limit.saturating_add(1))
    {
        if count > 0 {
            if c == '\n' {
                match blank_run {
                    Some(start) => paragraph = Some(start),
                    None => blank_run = Some((offset, count)),
                }
            } else if !c.is_whitespace() {
                blank_run = None;
            }
            if c.is_whitespace() {
                space = Some((offset, count));
                if matches!(prev, Some('.' | '!' | '?' | '…')) {
                    sentence = Some((offset, count));
                }
            }
            // These full stops are not followed by a space.
            if matches!(prev, Some('。' | '！' | '？')) {
                sentence = Some((offset, count));
            }
        }
        if count == limit {
            // A blank line in the whitespace around this point makes it a paragraph break; the
            // loop alone cannot see one that ends past the limit.
            let after = &text[offset..];
            let gap = &text[text[..offset].trim_end().len()..text.len() - after.trim_start().len()];
            if gap.matches('\n').nth(1).is_some() {
                paragraph = Some((offset, count));
            }
            // Too early a paragraph or sentence break would leave a tiny piece; a word break
            // anywhere beats cutting a word.
            let late =
                |found: Option<(usize, usize)>| found.filter(|&(_, n)| n >= limit.div_ceil(2));
            return late(paragraph)
                .or(late(sentence))
                .or(space)
                .map_or(offset, |(o, _)| o);
        }
        prev = Some(c);
    }
    text.len() // all of it fits
}

/// Reads facts from a document, chunk by chunk (one fast-model call each).
const FROM_DOCUMENT: &str = "You read part of a document the user gave their assistant and pick out \
    lasting facts about the user and the people in their life (where they live and work, family, \
    skills, history, preferences). Write each as one short third-person sentence about the user \
    (\"User worked at Infosys from 2019 to 2023\"). Only what the text says; nothing about anyone \
    unrelated to the user. Answer with JSON only: {\"facts\": [\"...\"]}, an empty list when there are none.";

/// Most facts read from one chunk.
const FACTS_PER_CHUNK: usize = 12;

impl MemoryService {
    /// `POST /api/memories/import`: the file's text, in chunks of `memory.import_chunk_chars`,
    /// each read for facts that are remembered with source `file:<name>` and held for review
    /// (`from` = the file's name, `snippet` = the chunk). A Stop-everything job.
    pub async fn import(
        &self,
        file_name: &str,
        bytes: Vec<u8>,
    ) -> Result<ImportResult, MemoryError> {
        // The name says what kind of file it is, so a nameless one is refused first (every door).
        if file_name.trim().is_empty() {
            return Err(ImportError::NoName.into());
        }
        self.writable()?;
        let name = base_name(file_name).trim().to_owned();
        let reading = name.clone();
        let text = tokio::task::spawn_blocking(move || extract_text(&reading, &bytes))
            .await
            .map_err(|_| ImportError::Unreadable(name.clone()))??;
        let config = self.config().current().memory.clone();
        let pieces = chunks(
            &text,
            usize::try_from(config.import_chunk_chars).unwrap_or(DEFAULT_CHUNK_CHARS),
        );
        let source = format!("file:{name}");
        let mut result = ImportResult {
            source: source.clone(),
            ..ImportResult::default()
        };
        let job = self.stop().start_job("memory import");
        let mut read_any = false;
        let mut failure = None;
        for piece in &pieces {
            if job.is_cancelled() {
                break;
            }
            let facts = match self
                .try_extract(FROM_DOCUMENT, piece, FACTS_PER_CHUNK, job.token())
                .await
            {
                Ok(facts) => {
                    read_any = true;
                    facts
                }
                Err(error) => {
                    tracing::info!(%error, "a part of an imported file could not be read");
                    failure = Some(error);
                    continue;
                }
            };
            let review = ReviewNote::new(&name, Some(piece), None);
            for written in self.remember_all(facts, &source, Some(review), &job).await {
                match written.action {
                    Action::Skip => result.skipped += 1,
                    Action::Update => result.updated += 1,
                    _ if written.status == Some(FactStatus::Pending) => {
                        result.added += 1;
                        result.pending += 1;
                    }
                    _ => result.added += 1,
                }
            }
        }
        if job.is_cancelled() && !read_any {
            return Err(MemoryError::ModelFailed(
                "The import was stopped by Stop everything before any of the file was read."
                    .to_owned(),
            ));
        }
        match failure {
            Some(error) if !read_any => Err(MemoryError::ModelFailed(format!(
                "Sentient could not read facts from {name} because the model did not answer: {error}"
            ))),
            _ => Ok(result),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sentient_core::error::ApiError;
    use std::io::Write;

    /// A .docx as Word would zip it, holding only the part the importer reads.
    fn docx(document_xml: &str) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        writer
            .start_file("word/document.xml", options)
            .expect("start entry");
        writer
            .write_all(document_xml.as_bytes())
            .expect("write entry");
        writer.finish().expect("finish zip").into_inner()
    }

    /// A one-page PDF showing `text` in Helvetica.
    fn pdf(text: &str) -> Vec<u8> {
        pdf_with_content(&format!("BT /F1 12 Tf 72 712 Td ({text}) Tj ET"))
    }

    /// A one-page PDF with this content stream and font F1 (Helvetica), with a byte-exact xref
    /// table.
    fn pdf_with_content(content: &str) -> Vec<u8> {
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] \
             /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>"
                .to_owned(),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_owned(),
            format!(
                "<< /Length {} >>\nstream\n{content}\nendstream",
                content.len()
            ),
        ];
        let mut out = b"%PDF-1.4\n".to_vec();
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n{body}\nendobj\n", i + 1).as_bytes());
        }
        let xref_at = out.len();
        // Each xref entry is exactly 20 bytes, the line end included.
        let mut xref = format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1);
        for offset in &offsets {
            xref.push_str(&format!("{offset:010} 00000 n \n"));
        }
        out.extend_from_slice(xref.as_bytes());
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref_at}\n%%EOF\n",
                objects.len() + 1
            )
            .as_bytes(),
        );
        // The fixture itself: every offset lands on its object's header.
        for (i, offset) in offsets.iter().enumerate() {
            assert!(out[*offset..].starts_with(format!("{} 0 obj", i + 1).as_bytes()));
        }
        assert!(out[xref_at..].starts_with(b"xref\n"));
        out
    }

    #[test]
    fn kind_comes_from_the_extension_in_any_case() {
        assert_eq!(DocumentKind::from_name("a.PDF"), Some(DocumentKind::Pdf));
        assert_eq!(DocumentKind::from_name("a.Docx"), Some(DocumentKind::Docx));
        assert_eq!(
            DocumentKind::from_name("notes.txt"),
            Some(DocumentKind::Text)
        );
        assert_eq!(
            DocumentKind::from_name("x.md"),
            Some(DocumentKind::Markdown)
        );
        assert_eq!(
            DocumentKind::from_name("x.markdown"),
            Some(DocumentKind::Markdown)
        );
        assert_eq!(
            DocumentKind::from_name(r"C:\Users\me\plan.v2.pdf"),
            Some(DocumentKind::Pdf)
        );
        assert_eq!(DocumentKind::from_name("report.xls"), None);
        assert_eq!(DocumentKind::from_name("old.doc"), None);
        assert_eq!(DocumentKind::from_name("README"), None);
        assert_eq!(DocumentKind::from_name(".md"), None);
        assert_eq!(DocumentKind::from_name("pdf"), None);
    }

    #[test]
    fn docx_paragraphs_tabs_and_breaks_become_text() {
        let xml = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"
  xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">
<w:body>
<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>
  <w:r><w:t>Meera</w:t></w:r><w:r><w:tab/><w:t xml:space="preserve">lives in Lisbon </w:t></w:r>
  <w:r><w:t>&amp; works from home &#8212; mostly.</w:t></w:r></w:p>
<w:p><w:r><w:t>She moved in 2021.</w:t><w:br/><w:t>Her cat is called Bica.</w:t></w:r>
  <w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r>
  <w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:p><w:r><w:t>Box</w:t></w:r></w:p></mc:Choice>
  <mc:Fallback><w:p><w:r><w:t>Box</w:t></w:r></w:p></mc:Fallback></mc:AlternateContent></w:r></w:p>
<w:sectPr/></w:body></w:document>"#;
        let text = extract_text("Meera.docx", &docx(xml)).expect("docx text");
        assert_eq!(
            text,
            "Meera\tlives in Lisbon & works from home \u{2014} mostly.\n\
             She moved in 2021.\nHer cat is called Bica.\nBox"
        );
    }

    #[test]
    fn docx_without_a_document_part_is_unreadable() {
        let mut writer = zip::ZipWriter::new(Cursor::new(Vec::new()));
        writer
            .start_file("other.xml", zip::write::SimpleFileOptions::default())
            .expect("start entry");
        writer.write_all(b"<x/>").expect("write entry");
        let bytes = writer.finish().expect("finish zip").into_inner();
        assert!(matches!(
            extract_text("a.docx", &bytes),
            Err(ImportError::Unreadable(name)) if name == "a.docx"
        ));
    }

    #[test]
    fn pdf_text_is_found() {
        let text = extract_text("note.pdf", &pdf("Meera lives in Lisbon")).expect("pdf text");
        assert_eq!(text, "Meera lives in Lisbon");
    }

    #[test]
    fn pdf_without_text_is_empty() {
        assert!(matches!(
            extract_text("scan.pdf", &pdf("")),
            Err(ImportError::Empty(name)) if name == "scan.pdf"
        ));
    }

    #[test]
    fn garbage_named_pdf_is_unreadable_not_a_panic() {
        let garbage: Vec<u8> = (0..4096u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let cases: [&[u8]; 3] = [&garbage, b"%PDF-1.7\n1 0 obj << /Type /Catalog", b""];
        for bytes in cases {
            let error = extract_text("report.pdf", bytes).expect_err("not a PDF");
            assert!(matches!(&error, ImportError::Unreadable(name) if name == "report.pdf"));
            assert_eq!(
                error.to_string(),
                "Sentient could not read report.pdf: it may be damaged or protected by a password."
            );
        }
    }

    #[test]
    fn pdf_parser_panic_is_unreadable() {
        // Text shown before any font is chosen: pdf-extract unwraps the missing font and panics.
        let bytes = pdf_with_content("BT 72 712 Td (no font yet) Tj ET");
        assert!(std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(&bytes)).is_err());
        assert!(matches!(
            extract_text("odd.pdf", &bytes),
            Err(ImportError::Unreadable(name)) if name == "odd.pdf"
        ));
    }

    #[test]
    fn other_types_are_refused_by_name() {
        let error = extract_text("/tmp/report.xls", b"a,b").expect_err("xls");
        assert!(matches!(&error, ImportError::UnsupportedType(name) if name == "report.xls"));
        assert_eq!(
            error.to_string(),
            "Sentient can import PDF, Word (.docx), text and Markdown files; report.xls is none of these."
        );
        assert_eq!(ApiError::from(error).status, 400);
    }

    #[test]
    fn over_twenty_megabytes_is_too_large_before_the_type_is_checked() {
        let big = vec![b'a'; MAX_IMPORT_BYTES + 1];
        let error = extract_text("big.xls", &big).expect_err("too large");
        assert!(matches!(error, ImportError::TooLarge));
        assert_eq!(ApiError::from(error).status, 413);
        // Exactly the limit is still accepted.
        let text = extract_text("big.txt", &big[..MAX_IMPORT_BYTES]).expect("at the limit");
        assert_eq!(text.len(), MAX_IMPORT_BYTES);
    }

    #[test]
    fn text_drops_bom_and_normalises_line_endings() {
        let bytes = b"\xEF\xBB\xBF  Line one\r\nLine two\rLine three\r\n\r\n";
        assert_eq!(
            extract_text("a.txt", bytes).expect("text"),
            "Line one\nLine two\nLine three"
        );
        // Bad UTF-8 is replaced, not refused.
        assert_eq!(
            extract_text("b.md", b"# caf\xE9\n").expect("markdown"),
            "# caf\u{FFFD}"
        );
        // Notepad's UTF-16 ("Unicode") files.
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("Olá\r\n".encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(extract_text("c.txt", &utf16).expect("utf-16"), "Olá");
    }

    #[test]
    fn blank_text_is_empty() {
        assert!(matches!(
            extract_text("blank.md", b"\xEF\xBB\xBF \r\n\t\n"),
            Err(ImportError::Empty(name)) if name == "blank.md"
        ));
    }

    #[test]
    fn chunks_respect_the_limit_and_keep_every_word() {
        let text = "Meera lives in Lisbon. She works as a nurse at the hospital near the river. \
                    On weekends she walks her dog Bica along the coast and swims when it is warm.";
        for limit in [1, 7, 20, 33, 50, 500] {
            let pieces = chunks(text, limit);
            assert!(
                pieces.iter().all(|p| p.chars().count() <= limit),
                "{limit}: {pieces:?}"
            );
            assert!(pieces.iter().all(|p| !p.trim().is_empty() && p.trim() == p));
            let words: Vec<&str> = text.split_whitespace().collect();
            let rejoined = pieces.join(" ");
            if limit >= 8 {
                // The longest word has 8 characters, so no word is cut.
                assert_eq!(rejoined.split_whitespace().collect::<Vec<_>>(), words);
            } else {
                assert_eq!(rejoined.replace(' ', ""), text.replace(' ', ""));
            }
        }
        assert_eq!(chunks(text, 500), vec![text.to_owned()]);
    }

    #[test]
    fn chunks_prefer_paragraphs_then_sentences() {
        let text = "First paragraph, about Lisbon.\n\nSecond one is here. It goes on and on";
        assert_eq!(
            chunks(text, 50),
            vec![
                "First paragraph, about Lisbon.".to_owned(),
                "Second one is here. It goes on and on".to_owned()
            ]
        );
        // No blank line in reach: the cut follows the sentence, not the last space.
        let text = "Meera lives in Lisbon. She has a dog called Bica";
        assert_eq!(
            chunks(text, 40),
            vec![
                "Meera lives in Lisbon.".to_owned(),
                "She has a dog called Bica".to_owned()
            ]
        );
        // A blank line just past the last character that fits beats an earlier sentence end.
        let text = "Aaaa bbbb. Cc\n  \nDd";
        assert_eq!(
            chunks(text, 13),
            vec!["Aaaa bbbb. Cc".to_owned(), "Dd".to_owned()]
        );
    }

    #[test]
    fn chunks_count_characters_not_bytes() {
        let text = "ÅØ日本語🙂ü".repeat(5);
        let pieces = chunks(&text, 4);
        assert!(
            pieces
                .iter()
                .all(|p| p.chars().count() == 4 || p.chars().count() == 3)
        );
        assert_eq!(pieces.concat(), text);
        // Japanese full stops are break points even without spaces.
        assert_eq!(
            chunks("今日は晴れです。明日は雨です。", 10),
            vec!["今日は晴れです。".to_owned(), "明日は雨です。".to_owned()]
        );
    }

    #[test]
    fn chunks_drop_blank_pieces_and_treat_zero_as_default() {
        assert!(chunks(" \n\n\t \n ", 10).is_empty());
        assert!(chunks("", 10).is_empty());
        assert_eq!(chunks(" a b ", usize::MAX), vec!["a b".to_owned()]);
        assert_eq!(
            chunks("one\n\n\n\n   \n\ntwo", 3),
            vec!["one".to_owned(), "two".to_owned()]
        );
        let long = "word ".repeat(400); // 2000 chars
        let pieces = chunks(&long, 0);
        assert_eq!(pieces.len(), 2);
        assert!(
            pieces
                .iter()
                .all(|p| p.chars().count() <= DEFAULT_CHUNK_CHARS)
        );
    }
}
