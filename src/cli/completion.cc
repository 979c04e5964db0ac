// `trtlens completion bash|zsh|fish`: shell completion scripts written from the same CLI11
// definitions that parse the command line, so they cannot drift from the options.
#include <iostream>
#include <sstream>

#include "cli/common.h"

namespace trtlens {
namespace {

struct Opt {
  std::vector<std::string> names;  // "-o", "--output"
  std::string description;
  bool takes_value = false;
  std::vector<std::string> choices;  // from a CLI::IsMember check
  enum { Free, File, Dir } value = Free;
};

struct Cmd {
  std::string name, description;
  std::vector<Opt> opts;
  bool files = false;  // takes INPUT files
};

std::vector<std::string> choices_of(const std::string& type_name) {
  std::vector<std::string> out;
  size_t open = type_name.find('{'), close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::stringstream ss(type_name.substr(open + 1, close - open - 1));
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

std::vector<Opt> options_of(const CLI::App& app, bool* files) {
  std::vector<Opt> out;
  for (const CLI::Option* o : app.get_options({})) {
    if (!o->nonpositional()) {
      if (files) *files = true;
      continue;
    }
    Opt opt;
    for (const auto& s : o->get_snames()) opt.names.push_back("-" + s);
    for (const auto& l : o->get_lnames()) opt.names.push_back("--" + l);
    opt.description = o->get_description();
    opt.takes_value = o->get_items_expected_max() > 0;
    opt.choices = choices_of(o->get_type_name());
    const std::string& l = o->get_lnames().empty() ? "" : o->get_lnames().front();
    if (l == "output" || l == "onnx" || l == "base" || l == "head") opt.value = Opt::File;
    if (l == "grammar-dir") opt.value = Opt::Dir;
    if (l == "build" && opt.choices.empty()) opt.choices = {"final", "all"};
    out.push_back(std::move(opt));
  }
  return out;
}

std::vector<Cmd> commands_of(const CLI::App& app) {
  std::vector<Cmd> out;
  for (const CLI::App* sub : app.get_subcommands({})) {
    Cmd c{sub->get_name(), sub->get_description(), {}, false};
    c.opts = options_of(*sub, &c.files);
    out.push_back(std::move(c));
  }
  out.push_back({"help", "Help on a command", {}, false});
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep = " ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// Single-quoted for any of the three shells (none of them expands inside '...').
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

void write_bash(const std::vector<Cmd>& cmds, const std::vector<Opt>& global, std::ostream& os) {
  std::vector<std::string> names;
  for (const auto& c : cmds) names.push_back(c.name);
  os << "# bash completion for trtlens (written by 'trtlens completion bash')\n"
        "_trtlens() {\n"
        "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= i opts=\n"
        "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
        "    case ${COMP_WORDS[i]} in\n"
        "      --color) ((i++)) ;;\n"
        "      -*) ;;\n"
        "      *) cmd=${COMP_WORDS[i]}; break ;;\n"
        "    esac\n"
        "  done\n"
        "  local commands="
     << quote(join(names)) << "\n";
  auto value_cases = [&](const std::vector<Opt>& opts) {
    for (const auto& o : opts) {
      if (!o.takes_value) continue;
      os << "        " << join(o.names, "|") << ") ";
      if (!o.choices.empty())
        os << "COMPREPLY=($(compgen -W " << quote(join(o.choices)) << " -- \"$cur\")); return ;;\n";
      else if (o.value == Opt::File)
        os << "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
      else if (o.value == Opt::Dir)
        os << "COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
      else
        os << "return ;;\n";
    }
  };
  std::vector<std::string> gnames;
  for (const auto& o : global)
    for (const auto& n : o.names) gnames.push_back(n);
  os << "  if [[ -z $cmd ]]; then\n"
        "    case $prev in\n";
  value_cases(global);
  os << "    esac\n"
        "    if [[ $cur == -* ]]; then\n"
        "      COMPREPLY=($(compgen -W "
     << quote(join(gnames)) << " -- \"$cur\"))\n"
     << "    else\n"
        "      COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
        "    fi\n"
        "    return\n"
        "  fi\n"
        "  case $cmd in\n"
        "    help) [[ $prev == help ]] && COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\")); "
        "return ;;\n";
  for (const auto& c : cmds) {
    if (c.name == "help") continue;
    std::vector<std::string> all = gnames;
    for (const auto& o : c.opts)
      for (const auto& n : o.names) all.push_back(n);
    os << "    " << c.name << ")\n      case $prev in\n";
    value_cases(c.opts);
    value_cases(global);
    os << "      esac\n      opts=" << quote(join(all)) << " ;;\n";
  }
  os << "    *) return ;;\n"
        "  esac\n"
        "  if [[ $cur == -* ]]; then\n"
        "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
        "  else\n"
        "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        "  fi\n"
        "}\n"
        "complete -o filenames -o bashdefault -F _trtlens trtlens\n";
}

// zsh _arguments spec text: brackets and colons in descriptions are special.
std::string zsh_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

void write_zsh(const std::vector<Cmd>& cmds, const std::vector<Opt>& global, std::ostream& os) {
  auto specs = [&](const std::vector<Opt>& opts) {
    for (const auto& o : opts) {
      std::string action;
      if (o.takes_value) {
        if (!o.choices.empty())
          action = ":value:(" + join(o.choices) + ")";
        else if (o.value == Opt::File)
          action = ":file:_files";
        else if (o.value == Opt::Dir)
          action = ":directory:_files -/";
        else
          action = ":value: ";
      }
      std::string desc = "[" + zsh_text(o.description) + "]" + action;
      bool repeat = o.names.size() == 1 && (o.names[0] == "--shape" || o.names[0] == "--onnx" ||
                                            o.names[0] == "--fail-on" || o.names[0] == "--ignore");
      if (o.names.size() == 1) {
        os << "        " << quote((repeat ? "*" : "") + o.names[0] + desc) << " \\\n";
      } else {
        std::string excl = "(" + join(o.names) + ")";
        os << "        " << quote(excl) << "{" << join(o.names, ",") << "}" << quote(desc)
           << " \\\n";
      }
    }
  };
  os << "#compdef trtlens\n# zsh completion for trtlens (written by 'trtlens completion zsh')\n"
        "_trtlens() {\n"
        "  local -a commands\n"
        "  commands=(\n";
  for (const auto& c : cmds) os << "    " << quote(c.name + ":" + zsh_text(c.description)) << "\n";
  os << "  )\n"
        "  local i=2\n"
        "  while (( i < CURRENT )) && [[ $words[i] == -* ]]; do\n"
        "    [[ $words[i] == --color ]] && (( i++ ))\n"
        "    (( i++ ))\n"
        "  done\n"
        "  if (( CURRENT <= i )); then\n"
        "    _arguments \\\n";
  specs(global);
  os << "        '*::command:->command'\n"
        "    _describe -t commands 'trtlens command' commands\n"
        "    return\n"
        "  fi\n"
        "  local cmd=$words[i]\n"
        "  shift $(( i - 1 )) words\n"
        "  (( CURRENT -= i - 1 ))\n"
        "  case $cmd in\n"
        "    help) _describe -t commands 'trtlens command' commands ;;\n";
  for (const auto& c : cmds) {
    if (c.name == "help") continue;
    os << "    " << c.name << ")\n      _arguments -s \\\n";
    specs(c.opts);
    specs(global);
    os << "        '*:input file:_files' ;;\n";
  }
  os << "  esac\n"
        "}\n"
        "_trtlens \"$@\"\n";
}

void write_fish(const std::vector<Cmd>& cmds, const std::vector<Opt>& global, std::ostream& os) {
  os << "# fish completion for trtlens (written by 'trtlens completion fish')\n"
        "complete -c trtlens -f\n";
  std::vector<std::string> names;
  for (const auto& c : cmds) names.push_back(c.name);
  auto opt_line = [&](const std::string& cond, const Opt& o) {
    os << "complete -c trtlens -n " << quote(cond);
    for (const auto& n : o.names)
      os << (n.rfind("--", 0) == 0 ? " -l " + n.substr(2) : " -s " + n.substr(1));
    if (o.takes_value) {
      if (!o.choices.empty())
        os << " -x -a " << quote(join(o.choices));
      else if (o.value == Opt::File || o.value == Opt::Dir)
        os << " -r -F";
      else
        os << " -x";
    }
    os << " -d " << quote(o.description) << '\n';
  };
  for (const auto& o : global) opt_line("true", o);
  for (const auto& c : cmds)
    os << "complete -c trtlens -n " << quote("not __fish_seen_subcommand_from " + join(names))
       << " -a " << c.name << " -d " << quote(c.description) << '\n';
  os << "complete -c trtlens -n " << quote("__fish_seen_subcommand_from help") << " -a "
     << quote(join(names)) << '\n';
  for (const auto& c : cmds) {
    if (c.name == "help") continue;
    std::string cond = "__fish_seen_subcommand_from " + c.name;
    for (const auto& o : c.opts) opt_line(cond, o);
    if (c.files) os << "complete -c trtlens -n " << quote(cond) << " -F\n";
  }
}

}  // namespace

void register_completion(CLI::App& app, std::vector<std::pair<CLI::App*, CommandRunner>>& cmds) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print a shell completion script: bash, zsh or fish (see the man page)");
  cmd->add_option("SHELL", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "fish"}));
  const CLI::App* root = &app;
  cmds.emplace_back(cmd, [root, shell] {
    auto cs = commands_of(*root);
    auto global = options_of(*root, nullptr);
    std::erase_if(global, [](const Opt& o) { return o.names.size() && o.names[0] == "-h"; });
    if (*shell == "bash")
      write_bash(cs, global, std::cout);
    else if (*shell == "zsh")
      write_zsh(cs, global, std::cout);
    else
      write_fish(cs, global, std::cout);
    std::cout.flush();
    if (!std::cout) throw UsageError("stdout: write failed");
    return 0;
  });
}

}  // namespace trtlens
