//! The text report's sections, written as Markdown, turned into HTML for the page with pulldown-cmark
//! (GitHub tables), so the studies' tables keep one layout in the terminal, in Markdown and on the page.

use pulldown_cmark::{html, Event, Options, Parser};

/// `md` as an HTML fragment; HTML inside it is shown as text, never passed through (a record may come from
/// anywhere). A line of text straight after a table is a caption, not a table row: a blank
/// line is put between them first (GitHub's table syntax would otherwise take the line as a row).
pub fn to_html(md: &str) -> String {
    let md = end_tables(md);
    let mut out = String::new();
    let events = Parser::new_ext(&md, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        other => other,
    });
    html::push_html(&mut out, events);
    out
}

/// `md` with a blank line after every table whose next line is not blank.
fn end_tables(md: &str) -> String {
    let mut out = String::with_capacity(md.len() + 16);
    let mut in_table = false;
    for line in md.lines() {
        let is_row = line.trim_start().starts_with('|');
        if in_table && !is_row && !line.trim().is_empty() {
            out.push('\n');
        }
        in_table = is_row;
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_caption_after_a_table_stays_a_paragraph() {
        let md = "| a | b |\n|---|---|\n| 1 | 2 |\ncells: medians\n- a fit\n";
        let html = to_html(md);
        assert_eq!(html.matches("<tr>").count(), 2, "{html}");
        assert!(html.contains("<p>cells: medians</p>"), "{html}");
        assert!(html.contains("<li>a fit</li>"), "{html}");
    }

    #[test]
    fn markup_in_a_cell_is_escaped_text() {
        let html = to_html("| flags |\n|---|\n| a <res b |\n\n<script>x</script> <b>y</b>\n");
        assert!(html.contains("a &lt;res b"), "{html}");
        assert!(!html.contains("<script>") && !html.contains("<b>"), "{html}");
    }
}
