#include "eval/longbench_tasks.h"

#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {

const std::vector<LongBenchTask>& longbench_tasks() {
  static const std::vector<LongBenchTask> kTasks = {
    {"narrativeqa",
     "You are given a story, which can be either a novel or a movie script, and a question. Answer the question asconcisely as you can, using a single phrase if possible. Do not provide any explanation.\n\nStory: {context}\n\nNow, answer the question based on the story asconcisely as you can, using a single phrase if possible. Do not provide any explanation.\n\nQuestion: {input}\n\nAnswer:",
     128, Metric::kQaF1, Language::kEnglish, TaskCategory::kSingleDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"qasper",
     "You are given a scientific article and a question. Answer the question as concisely as you can, using a single phrase or sentence if possible. If the question cannot be answered based on the information in the article, write \"unanswerable\". If the question is a yes/no question, answer \"yes\", \"no\", or \"unanswerable\". Do not provide any explanation.\n\nArticle: {context}\n\n Answer the question based on the above article as concisely as you can, using a single phrase or sentence if possible. If the question cannot be answered based on the information in the article, write \"unanswerable\". If the question is a yes/no question, answer \"yes\", \"no\", or \"unanswerable\". Do not provide any explanation.\n\nQuestion: {input}\n\nAnswer:",
     128, Metric::kQaF1, Language::kEnglish, TaskCategory::kSingleDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"multifieldqa_en",
     "Read the following text and answer briefly.\n\n{context}\n\nNow, answer the following question based on the above text, only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
     64, Metric::kQaF1, Language::kEnglish, TaskCategory::kSingleDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/150},
    {"multifieldqa_zh",
     "阅读以下文字并用中文简短回答：\n\n{context}\n\n现在请基于上面的文章回答下面的问题，只告诉我答案，不要输出任何其他字词。\n\n问题：{input}\n回答：",
     64, Metric::kQaF1Zh, Language::kChinese, TaskCategory::kSingleDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"hotpotqa",
     "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
     32, Metric::kQaF1, Language::kEnglish, TaskCategory::kMultiDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"2wikimqa",
     "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
     32, Metric::kQaF1, Language::kEnglish, TaskCategory::kMultiDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"musique",
     "Answer the question based on the given passages. Only give me the answer and do not output any other words.\n\nThe following are given passages.\n{context}\n\nAnswer the question based on the given passages. Only give me the answer and do not output any other words.\n\nQuestion: {input}\nAnswer:",
     32, Metric::kQaF1, Language::kEnglish, TaskCategory::kMultiDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"dureader",
     "请基于给定的文章回答下述问题。\n\n文章：{context}\n\n请基于上述文章回答下面的问题。\n\n问题：{input}\n回答：",
     128, Metric::kRougeLZh, Language::kChinese, TaskCategory::kMultiDocQa, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"gov_report",
     "You are given a report by a government agency. Write a one-page summary of the report.\n\nReport:\n{context}\n\nNow, write a one-page summary of the report.\n\nSummary:",
     512, Metric::kRougeL, Language::kEnglish, TaskCategory::kSummarization, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"qmsum",
     "You are given a meeting transcript and a query containing a question or instruction. Answer the query in one or more sentences.\n\nTranscript:\n{context}\n\nNow, answer the query based on the above meeting transcript in one or more sentences.\n\nQuery: {input}\nAnswer:",
     512, Metric::kRougeL, Language::kEnglish, TaskCategory::kSummarization, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"multi_news",
     "You are given several news passages. Write a one-page summary of all news. \n\nNews:\n{context}\n\nNow, write a one-page summary of all the news.\n\nSummary:",
     512, Metric::kRougeL, Language::kEnglish, TaskCategory::kSummarization, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"vcsum",
     "下面有一段会议记录，请你阅读后，写一段总结，总结会议的内容。\n会议记录：\n{context}\n\n会议总结：",
     512, Metric::kRougeLZh, Language::kChinese, TaskCategory::kSummarization, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"trec",
     "Please determine the type of the question below. Here are some examples of questions.\n\n{context}\n{input}",
     64, Metric::kClassification, Language::kEnglish, TaskCategory::kFewShot, /*skip_chat_template=*/true,
     /*first_line_only=*/true, /*official_num_samples=*/200},
    {"triviaqa",
     "Answer the question based on the given passage. Only give me the answer and do not output any other words. The following are some examples.\n\n{context}\n\n{input}",
     32, Metric::kQaF1, Language::kEnglish, TaskCategory::kFewShot, /*skip_chat_template=*/true,
     /*first_line_only=*/true, /*official_num_samples=*/200},
    {"samsum",
     "Summarize the dialogue into a few short sentences. The following are some examples.\n\n{context}\n\n{input}",
     128, Metric::kRougeL, Language::kEnglish, TaskCategory::kFewShot, /*skip_chat_template=*/true,
     /*first_line_only=*/true, /*official_num_samples=*/200},
    {"lsht",
     "请判断给定新闻的类别，下面是一些例子。\n\n{context}\n{input}",
     64, Metric::kClassification, Language::kChinese, TaskCategory::kFewShot, /*skip_chat_template=*/true,
     /*first_line_only=*/true, /*official_num_samples=*/200},
    {"passage_count",
     "There are some paragraphs below sourced from Wikipedia. Some of them may be duplicates. Please carefully read these paragraphs and determine how many unique paragraphs there are after removing duplicates. In other words, how many non-repeating paragraphs are there in total?\n\n{context}\n\nPlease enter the final count of unique paragraphs after removing duplicates. The output format should only contain the number, such as 1, 2, 3, and so on.\n\nThe final answer is: ",
     32, Metric::kCount, Language::kEnglish, TaskCategory::kSynthetic, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"passage_retrieval_en",
     "Here are 30 paragraphs from Wikipedia, along with an abstract. Please determine which paragraph the abstract is from.\n\n{context}\n\nThe following is an abstract.\n\n{input}\n\nPlease enter the number of the paragraph that the abstract is from. The answer format must be like \"Paragraph 1\", \"Paragraph 2\", etc.\n\nThe answer is: ",
     32, Metric::kRetrieval, Language::kEnglish, TaskCategory::kSynthetic, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"passage_retrieval_zh",
     "以下是若干段落文字，以及其中一个段落的摘要。请确定给定的摘要出自哪一段。\n\n{context}\n\n下面是一个摘要\n\n{input}\n\n请输入摘要所属段落的编号。答案格式必须是\"段落1\"，\"段落2\"等格式\n\n答案是：",
     32, Metric::kRetrievalZh, Language::kChinese, TaskCategory::kSynthetic, /*skip_chat_template=*/false,
     /*first_line_only=*/false, /*official_num_samples=*/200},
    {"lcc",
     "Please complete the code given below. \n{context}Next line of code:\n",
     64, Metric::kCodeSim, Language::kCode, TaskCategory::kCode, /*skip_chat_template=*/true,
     /*first_line_only=*/false, /*official_num_samples=*/500},
    {"repobench-p",
     "Please complete the code given below. \n{context}{input}Next line of code:\n",
     64, Metric::kCodeSim, Language::kCode, TaskCategory::kCode, /*skip_chat_template=*/true,
     /*first_line_only=*/false, /*official_num_samples=*/500},
  };
  return kTasks;
}

const LongBenchTask& find_longbench_task(std::string_view name) {
  for (const auto& task : longbench_tasks()) {
    if (task.name == name) return task;
  }
  std::string valid;
  for (const auto& task : longbench_tasks()) {
    if (!valid.empty()) valid += ", ";
    valid += task.name;
  }
  throw std::invalid_argument(
      fmt::format("unknown LongBench task '{}'; valid tasks are: {}", name, valid));
}

bool metric_is_supported(Metric metric) {
  return metric != Metric::kQaF1Zh && metric != Metric::kRougeLZh;
}

std::string_view metric_name(Metric metric) {
  switch (metric) {
    case Metric::kQaF1: return "qa_f1_score";
    case Metric::kQaF1Zh: return "qa_f1_zh_score";
    case Metric::kRougeL: return "rouge_score";
    case Metric::kRougeLZh: return "rouge_zh_score";
    case Metric::kClassification: return "classification_score";
    case Metric::kRetrieval: return "retrieval_score";
    case Metric::kRetrievalZh: return "retrieval_zh_score";
    case Metric::kCount: return "count_score";
    case Metric::kCodeSim: return "code_sim_score";
  }
  return "unknown";
}

std::string_view category_name(TaskCategory category) {
  switch (category) {
    case TaskCategory::kSingleDocQa: return "Single-Doc QA";
    case TaskCategory::kMultiDocQa: return "Multi-Doc QA";
    case TaskCategory::kSummarization: return "Summarization";
    case TaskCategory::kFewShot: return "Few-shot Learning";
    case TaskCategory::kSynthetic: return "Synthetic";
    case TaskCategory::kCode: return "Code";
  }
  return "unknown";
}

std::string_view language_code(Language language) {
  switch (language) {
    case Language::kEnglish: return "en";
    case Language::kChinese: return "zh";
    case Language::kCode: return "code";
  }
  return "unknown";
}

std::string format_prompt(std::string_view tmpl, std::string_view context,
                          std::string_view input) {
  std::string out;
  out.reserve(tmpl.size() + context.size() + input.size());
  std::size_t i = 0;
  while (i < tmpl.size()) {
    const char c = tmpl[i];
    if (c == '}') {
      if (i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
        out.push_back('}');
        i += 2;
        continue;
      }
      throw std::invalid_argument(fmt::format(
          "prompt template: single '}}' at offset {}; write '}}}}' for a literal brace", i));
    }
    if (c != '{') {
      out.push_back(c);
      ++i;
      continue;
    }
    if (i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      out.push_back('{');
      i += 2;
      continue;
    }
    const std::size_t close = tmpl.find('}', i + 1);
    if (close == std::string_view::npos) {
      throw std::invalid_argument(fmt::format(
          "prompt template: '{{' at offset {} is never closed; write '{{{{' for a literal brace",
          i));
    }
    const std::string_view field = tmpl.substr(i + 1, close - i - 1);
    if (field == "context") {
      out.append(context);
    } else if (field == "input") {
      out.append(input);
    } else {
      throw std::invalid_argument(fmt::format(
          "prompt template: field '{{{}}}' at offset {} is not supported; only {{context}} and "
          "{{input}} are (no format specs or conversions)",
          field, i));
    }
    i = close + 1;
  }
  return out;
}

std::string format_prompt(const LongBenchTask& task, std::string_view context,
                          std::string_view input) {
  try {
    return format_prompt(task.prompt_template, context, input);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("task '{}': {}", task.name, e.what()));
  }
}

}  // namespace ripplekv::eval
