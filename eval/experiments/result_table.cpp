#include "eval/experiments/result_table.h"

#include <cmath>

#include <fmt/format.h>

namespace ripplekv::experiments {
namespace {

const char* kind_name(RowKind kind) {
  switch (kind) {
    case RowKind::kRun: return "run";
    case RowKind::kFullCache: return "full";
    case RowKind::kPublished: return "published";
  }
  return "?";
}

std::string number(const std::optional<double>& v, int decimals) {
  return v ? fmt::format("{:.{}f}", *v, decimals) : "-";
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// Runs of consecutive columns with the same group: (group, first, count).
struct GroupSpan {
  std::string group;
  std::size_t first, count;
};
std::vector<GroupSpan> group_spans(const std::vector<TableColumn>& columns) {
  std::vector<GroupSpan> spans;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (!spans.empty() && spans.back().group == columns[c].group) {
      ++spans.back().count;
    } else {
      spans.push_back({columns[c].group, c, 1});
    }
  }
  return spans;
}

bool has_groups(const ResultTable& t) {
  for (const auto& c : t.columns) {
    if (!c.group.empty()) return true;
  }
  return false;
}

bool has_published(const ResultTable& t) {
  for (const auto& b : t.blocks) {
    for (const auto& r : b.rows) {
      if (r.kind == RowKind::kPublished) return true;
    }
  }
  return false;
}

bool has_intervals(const ResultTable& t) {
  for (const auto& b : t.blocks) {
    for (const auto& r : b.rows) {
      if (r.interval) return true;
    }
  }
  return false;
}

std::string interval_text(const TableRow& row, int decimals) {
  return row.interval ? fmt::format("[{:.{}f}, {:.{}f}]", row.interval->first, decimals, row.interval->second, decimals)
                      : "-";
}

std::string row_label(const TableRow& row, std::size_t i) {
  return row.labels.at(i) + (i == 0 && row.kind == RowKind::kPublished ? "\u2020" : "");
}

}  // namespace

std::vector<std::vector<std::vector<bool>>> best_marks(const ResultTable& table) {
  std::vector<std::vector<std::vector<bool>>> marks;
  for (const auto& block : table.blocks) {
    std::vector<std::vector<bool>> m(block.rows.size(), std::vector<bool>(table.columns.size(), false));
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
      const Better better = table.columns[c].better;
      if (better == Better::kNone) continue;
      std::optional<double> best, worst;
      int competitors = 0;
      // Compare at the printed precision, so that equal printed values are equally best.
      const double scale = std::pow(10.0, table.decimals);
      auto printed = [&](double v) { return std::round(v * scale) / scale; };
      for (const auto& row : block.rows) {
        if (row.kind != RowKind::kRun || !row.values.at(c)) continue;
        ++competitors;
        const double v = printed(*row.values[c]);
        if (!best || (better == Better::kHigher ? v > *best : v < *best)) best = v;
        if (!worst || (better == Better::kHigher ? v < *worst : v > *worst)) worst = v;
      }
      if (competitors < 2 || *best == *worst) continue;  // all equal: nothing stands out
      for (std::size_t r = 0; r < block.rows.size(); ++r) {
        const auto& row = block.rows[r];
        m[r][c] = row.kind == RowKind::kRun && row.values.at(c) && printed(*row.values[c]) == *best;
      }
    }
    marks.push_back(std::move(m));
  }
  return marks;
}

std::string table_markdown(const std::vector<ResultTable>& tables) {
  std::string out;
  for (const auto& t : tables) {
    const auto marks = best_marks(t);
    const bool intervals = has_intervals(t);
    const std::size_t width = t.label_headers.size() + t.columns.size() + (intervals ? 1 : 0);
    out += fmt::format("### {}\n\n", t.title);
    std::string header = "|", rule = "|";
    if (has_groups(t)) {
      // A group header row above the column names (Markdown has no column spans): the group
      // name over the first column of each group, the column names in bold in the first row.
      for (std::size_t i = 0; i < t.label_headers.size(); ++i) header += "  |";
      for (const auto& span : group_spans(t.columns)) {
        header += fmt::format(" {} |", span.group);
        for (std::size_t k = 1; k < span.count; ++k) header += "  |";
      }
      if (intervals) header += "  |";
    } else {
      for (const auto& h : t.label_headers) header += fmt::format(" {} |", h);
      for (const auto& c : t.columns) header += fmt::format(" {} |", c.header);
      if (intervals) header += fmt::format(" {} |", t.interval_header);
    }
    for (std::size_t i = 0; i < width; ++i) rule += i < t.label_headers.size() ? " --- |" : " ---: |";
    out += header + "\n" + rule + "\n";
    if (has_groups(t)) {
      out += "|";
      for (const auto& h : t.label_headers) out += fmt::format(" **{}** |", h);
      for (const auto& c : t.columns) out += fmt::format(" **{}** |", c.header);
      if (intervals) out += fmt::format(" **{}** |", t.interval_header);
      out += "\n";
    }
    for (std::size_t b = 0; b < t.blocks.size(); ++b) {
      const auto& block = t.blocks[b];
      if (!block.title.empty()) {
        out += fmt::format("| *{}* |", block.title);
        for (std::size_t i = 1; i < width; ++i) out += "  |";
        out += "\n";
      }
      for (std::size_t r = 0; r < block.rows.size(); ++r) {
        const auto& row = block.rows[r];
        out += "|";
        for (std::size_t i = 0; i < row.labels.size(); ++i) out += fmt::format(" {} |", row_label(row, i));
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
          const auto text = number(row.values[c], t.decimals);
          out += marks[b][r][c] ? fmt::format(" **{}** |", text) : fmt::format(" {} |", text);
        }
        if (intervals) out += fmt::format(" {} |", interval_text(row, t.decimals));
        out += "\n";
      }
    }
    out += "\n";
    if (has_published(t)) {
      out += "\u2020 published numbers, not run here (sources below); never marked best.\n";
      for (const auto& block : t.blocks) {
        for (const auto& row : block.rows) {
          if (row.kind == RowKind::kPublished) out += fmt::format("- {} ({}): {}\n", row.labels[0], block.title, row.source);
        }
      }
      out += "\n";
    }
    for (const auto& note : t.notes) out += note + "\n";
    if (!t.notes.empty()) out += "\n";
  }
  return out;
}

std::string table_csv(const std::vector<ResultTable>& tables) {
  std::string out;
  std::string last_header;
  for (const auto& t : tables) {
    std::string header = "table";
    for (const auto& h : t.label_headers) header += "," + csv_field(h);
    header += ",row_kind,source";
    for (const auto& c : t.columns) header += "," + csv_field(c.key);
    const bool intervals = has_intervals(t);
    if (intervals) header += fmt::format(",{}_lo,{}_hi", csv_field(t.interval_key), csv_field(t.interval_key));
    if (header != last_header) out += header + "\n";
    last_header = header;
    for (const auto& block : t.blocks) {
      for (const auto& row : block.rows) {
        out += csv_field(t.title);
        for (const auto& l : row.labels) out += "," + csv_field(l);
        out += fmt::format(",{},{}", kind_name(row.kind), csv_field(row.source));
        for (const auto& v : row.values) out += v ? fmt::format(",{}", *v) : ",";
        if (intervals) out += row.interval ? fmt::format(",{},{}", row.interval->first, row.interval->second) : ",,";
        out += "\n";
      }
    }
  }
  return out;
}

std::string latex_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '_': out += "\\_"; break;
      case '%': out += "\\%"; break;
      case '&': out += "\\&"; break;
      case '#': out += "\\#"; break;
      case '$': out += "\\$"; break;
      case '{': out += "\\{"; break;
      case '}': out += "\\}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '^': out += "\\textasciicircum{}"; break;
      case '\\': out += "\\textbackslash{}"; break;
      default: out += c;
    }
  }
  return out;
}

std::string table_latex(const std::vector<ResultTable>& tables) {
  std::string out = "% ripplekv table: needs \\usepackage{booktabs} (and graphicx for \\resizebox)\n";
  for (const auto& t : tables) {
    const auto marks = best_marks(t);
    const std::size_t labels = t.label_headers.size();
    const bool intervals = has_intervals(t);
    const std::size_t width = labels + t.columns.size() + (intervals ? 1 : 0);
    out += "\\begin{table*}[t]\n\\centering\n";
    out += fmt::format("\\caption{{{}}}\n", latex_escape(t.title));
    out += "\\resizebox{\\textwidth}{!}{%\n\\begin{tabular}{" + std::string(labels, 'l') +
           std::string(t.columns.size(), 'r') + (intervals ? "c" : "") + "}\n\\toprule\n";
    if (has_groups(t)) {
      std::string line(labels > 0 ? labels - 1 : 0, '&');
      std::string rules;
      for (const auto& span : group_spans(t.columns)) {
        const std::size_t first = labels + span.first + 1;  // 1-based column numbers
        if (span.group.empty()) {
          for (std::size_t k = 0; k < span.count; ++k) line += " &";
        } else {
          line += fmt::format(" & \\multicolumn{{{}}}{{c}}{{{}}}", span.count, latex_escape(span.group));
          rules += fmt::format("\\cmidrule(lr){{{}-{}}}", first, first + span.count - 1);
        }
      }
      if (intervals) line += " &";
      out += line + " \\\\\n" + rules + "\n";
    }
    std::string header;
    for (std::size_t i = 0; i < labels; ++i) header += (i ? " & " : "") + latex_escape(t.label_headers[i]);
    for (const auto& c : t.columns) header += " & " + latex_escape(c.header);
    if (intervals) header += " & " + latex_escape(t.interval_header);
    out += header + " \\\\\n";
    for (std::size_t b = 0; b < t.blocks.size(); ++b) {
      const auto& block = t.blocks[b];
      out += "\\midrule\n";
      if (!block.title.empty()) {
        out += fmt::format("\\multicolumn{{{}}}{{l}}{{\\textit{{{}}}}} \\\\\n", width, latex_escape(block.title));
      }
      for (std::size_t r = 0; r < block.rows.size(); ++r) {
        const auto& row = block.rows[r];
        std::string line;
        for (std::size_t i = 0; i < row.labels.size(); ++i) {
          line += (i ? " & " : "") + latex_escape(row.labels[i]) +
                  (i == 0 && row.kind == RowKind::kPublished ? "$^\\dagger$" : "");
        }
        for (std::size_t c = 0; c < t.columns.size(); ++c) {
          const auto text = number(row.values[c], t.decimals);
          line += marks[b][r][c] ? fmt::format(" & \\textbf{{{}}}", text) : " & " + text;
        }
        if (intervals) line += " & " + interval_text(row, t.decimals);
        out += line + " \\\\\n";
      }
    }
    out += "\\bottomrule\n\\end{tabular}}\n";
    if (has_published(t)) {
      out += "\\\\[2pt]{\\footnotesize $^\\dagger$ published numbers, not run here:";
      for (const auto& block : t.blocks) {
        for (const auto& row : block.rows) {
          if (row.kind == RowKind::kPublished) out += " " + latex_escape(row.labels[0] + ": " + row.source) + ".";
        }
      }
      out += "}\n";
    }
    out += "\\end{table*}\n\n";
  }
  return out;
}

}  // namespace ripplekv::experiments
