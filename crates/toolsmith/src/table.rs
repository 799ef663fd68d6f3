//! Text tables for people (`comfy-table`): a header underlined, columns sized to their
//! content and two spaces apart, numbers right-aligned. `--json` is the form for programs.

use comfy_table::{CellAlignment, Table};

use crate::printer;

/// No borders, no lines between rows or columns; only the header is underlined.
const STYLE: &str = "     --            ";

/// Space to the right of each column (the blank column line adds one more).
const GAP: (u16, u16) = (0, 1);

/// A table with this header.
pub(crate) fn new<I, T>(header: I) -> Table
where
    I: IntoIterator<Item = T>,
    T: Into<comfy_table::Cell>,
{
    let mut table = Table::new();
    table.load_preset(STYLE).set_header(header);
    for column in table.column_iter_mut() {
        column.set_padding(GAP);
    }
    table
}

/// The first line of a text, cut to `max` characters for a table cell.
pub(crate) fn first_line(text: &str, max: usize) -> String {
    toolsmith_plumbing::text::truncate_chars(text.lines().next().unwrap_or(""), max)
}

/// Right-aligns these columns (numbers).
pub(crate) fn align_right(table: &mut Table, columns: impl IntoIterator<Item = usize>) {
    for i in columns {
        if let Some(column) = table.column_mut(i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// Writes the table to stdout, without trailing spaces.
pub(crate) fn print(table: &Table) -> anyhow::Result<()> {
    printer::line(table.trim_fmt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_line_up_and_numbers_align_right() {
        let mut table = new(["name", "count"]);
        table.add_row(vec!["a", "7"]);
        table.add_row(vec!["longer name", "1234"]);
        align_right(&mut table, [1]);
        assert_eq!(
            table.trim_fmt(),
            "name         count\n-------------------\na                7\nlonger name   1234"
        );
    }
}
