// A results table as papers print them, rendered as Markdown, CSV and LaTeX (booktabs):
// label columns (method, budget), value columns under optional group headers (LongBench's
// task categories), rows in blocks (one per KV budget), and the best value of each column
// within a block in bold. Published reference rows carry a dagger and their source and are
// never marked best; neither are full-cache rows (the upper reference). Torch-free.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace ripplekv::experiments {

enum class Better { kHigher, kLower, kNone };

struct TableColumn {
  std::string key;     // machine name, the CSV header (e.g. "hotpotqa", "kl_mean")
  std::string header;  // short name for Markdown/LaTeX (e.g. "HotpotQA")
  std::string group;   // group header; consecutive columns with the same group share it ("" = none)
  Better better = Better::kHigher;
};

enum class RowKind { kRun, kFullCache, kPublished };

struct TableRow {
  std::vector<std::string> labels;  // one per ResultTable::label_headers
  std::vector<std::optional<double>> values;  // one per column; nullopt prints "-"
  RowKind kind = RowKind::kRun;
  std::string source;  // published rows: where the numbers come from; runs: the run folder
  std::optional<std::pair<double, double>> interval;  // confidence interval of the row (lo, hi)
};

struct TableBlock {
  std::string title;  // e.g. "KV budget 128"; "" = no title row
  std::vector<TableRow> rows;
};

struct ResultTable {
  std::string title;  // e.g. "LongBench: stories260K"
  std::vector<std::string> label_headers;  // e.g. {"Method", "Budget"}
  std::vector<TableColumn> columns;
  int decimals = 2;
  std::vector<TableBlock> blocks;
  std::vector<std::string> notes;  // printed under the table
  // When any row has an interval: the header of the column printed after the values
  // ("[lo, hi]"; CSV: <interval_key>_lo and _hi).
  std::string interval_header = "95% CI";
  std::string interval_key = "ci95";
};

// best[b][r][c]: row r of block b holds the best value of column c in its block. Only kRun
// rows compete, and only when at least two of them have a value in that column and not all are
// equal (at the printed precision); ties for the best are all best.
std::vector<std::vector<std::vector<bool>>> best_marks(const ResultTable& table);

std::string table_markdown(const std::vector<ResultTable>& tables);
// One header line: table, the label headers, row_kind (run | full | published), source, the
// column keys; then one line per row. Values with full precision ("" when missing).
std::string table_csv(const std::vector<ResultTable>& tables);
// A booktabs tabular per table (in a table* float), \textbf for the best values.
std::string table_latex(const std::vector<ResultTable>& tables);

std::string latex_escape(const std::string& text);

}  // namespace ripplekv::experiments
