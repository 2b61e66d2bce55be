#include "catalog.hpp"

#include <fstream>
#include <memory>
#include <set>
#include <sstream>

namespace gorocprof::rocmemu {
namespace {

struct Definition {
    std::vector<std::string> archs;
    std::string block;
    int event = -1;
    std::string expression;
};

struct Entry {
    std::string name, description;
    std::vector<Definition> defs;
};

struct Limits {
    // family -> block -> limit; rows noted "MI300" apply to gfx940/941/942 only
    std::map<std::string, std::map<std::string, int>> family, mi300;
};

std::vector<Entry> g_entries;
Limits g_limits;
std::map<std::string, std::unique_ptr<ArchCatalog>> g_catalogs;

bool is_mi300(const std::string& arch) { return arch == "gfx940" || arch == "gfx941" || arch == "gfx942"; }

std::string family(const std::string& arch) {
    std::string s = arch.rfind("gfx", 0) == 0 ? arch.substr(3) : arch;
    if (s.empty() || !isdigit(static_cast<unsigned char>(s[0]))) return "";
    if (s[0] == '1' && s.size() >= 2 && isdigit(static_cast<unsigned char>(s[1]))) return "gfx" + s.substr(0, 2);
    return "gfx" + s.substr(0, 1);
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A YAML flow scalar as the definitions write them: plain, 'single' ('' = ') or "double" quoted.
std::string unquote(const std::string& raw) {
    std::string s = trim(raw);
    if (s.size() >= 2 && s.front() == '\'' && s.back() == '\'') {
        std::string out;
        for (size_t i = 1; i + 1 < s.size(); ++i) {
            out += s[i];
            if (s[i] == '\'' && s[i + 1] == '\'') ++i;
        }
        return out;
    }
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
}

size_t indent_of(const std::string& line) {
    size_t n = line.find_first_not_of(' ');
    return n == std::string::npos ? line.size() : n;
}

bool key_value(const std::string& body, const char* key, std::string* value) {
    std::string k = std::string(key) + ":";
    if (body.compare(0, k.size(), k) != 0) return false;
    *value = body.substr(k.size());
    return true;
}

// The subset of YAML counter_defs.yaml uses: one counter per "  - name:", keys at fixed depths,
// architecture lists as "- gfx..." items, long scalars folded onto further lines.
bool parse_yaml(std::istream& in, const std::string& path, std::string* error) {
    std::string line, value;
    std::string* open_scalar = nullptr;  // the scalar that continuation lines extend
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::string body = trim(line);
        if (body.empty() || body[0] == '#') continue;
        size_t indent = indent_of(line);
        if (indent == 2 && key_value(body, "- name", &value)) {
            g_entries.push_back(Entry{unquote(value), "", {}});
            open_scalar = nullptr;
            continue;
        }
        if (g_entries.empty()) continue;  // the document's header keys
        Entry& e = g_entries.back();
        if (key_value(body, "description", &value)) {
            e.description = trim(value);
            open_scalar = &e.description;
        } else if (key_value(body, "- architectures", &value)) {
            e.defs.emplace_back();
            open_scalar = nullptr;
        } else if (indent >= 6 && body.compare(0, 2, "- ") == 0 && !e.defs.empty() && open_scalar == nullptr) {
            e.defs.back().archs.push_back(unquote(body.substr(2)));
        } else if (key_value(body, "block", &value) && !e.defs.empty()) {
            e.defs.back().block = unquote(value);
            open_scalar = nullptr;
        } else if (key_value(body, "event", &value) && !e.defs.empty()) {
            try {
                e.defs.back().event = std::stoi(unquote(value));
            } catch (const std::exception&) {
                *error = path + ":" + std::to_string(number) + ": event of " + e.name + " is not a number";
                return false;
            }
            open_scalar = nullptr;
        } else if (key_value(body, "expression", &value) && !e.defs.empty()) {
            e.defs.back().expression = trim(value);
            open_scalar = &e.defs.back().expression;
        } else if (key_value(body, "properties", &value) || key_value(body, "definitions", &value)) {
            open_scalar = nullptr;
        } else if (open_scalar != nullptr) {
            *open_scalar += " " + body;
        } else {
            *error = path + ":" + std::to_string(number) + ": unexpected line in counter " + e.name;
            return false;
        }
    }
    for (Entry& e : g_entries) {
        e.description = unquote(e.description);
        for (Definition& d : e.defs) d.expression = unquote(d.expression);
    }
    return true;
}

bool parse_limits(std::istream& in, const std::string& path, std::string* error) {
    std::string line;
    int number = 0;
    bool header = false;
    while (std::getline(in, line)) {
        ++number;
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string field; std::getline(ss, field, '\t');) f.push_back(field);
        if (!header) {
            header = f.size() >= 3 && f[0] == "family" && f[1] == "block" && f[2] == "counters_per_pass";
            if (!header) {
                *error = path + ":" + std::to_string(number) + ": want the header family, block, counters_per_pass";
                return false;
            }
            continue;
        }
        int n = -1;
        try {
            n = f.size() >= 3 ? std::stoi(f[2]) : -1;
        } catch (const std::exception&) {
        }
        if (n < 0) {
            *error = path + ":" + std::to_string(number) + ": want family, block and a counter count";
            return false;
        }
        std::string note = f.size() > 3 ? trim(f[3]) : "";
        (note.rfind("MI300", 0) == 0 ? g_limits.mi300 : g_limits.family)[f[0]][f[1]] = n;
    }
    if (!header) *error = path + ": no header line";
    return header;
}

std::map<std::string, int> limits_for(const std::string& arch) {
    std::string fam = family(arch);
    std::map<std::string, int> out;
    if (fam == "gfx12") out = g_limits.family["gfx11"];  // gfx12 lists only what it changed
    for (const auto& kv : g_limits.family[fam]) out[kv.first] = kv.second;
    if (is_mi300(arch))
        for (const auto& kv : g_limits.mi300[fam]) out[kv.first] = kv.second;
    // The UMC block has registers on MI200 and MI300 only (the gfx9 table says 0).
    if (arch == "gfx90a") out["UMC"] = 9;
    if (is_mi300(arch)) out["UMC"] = 11;
    return out;
}

std::unique_ptr<ArchCatalog> build(const std::string& arch, const std::string& source) {
    auto c = std::make_unique<ArchCatalog>();
    c->arch = arch;
    c->limits = limits_for(source);
    for (const Entry& e : g_entries) {
        for (const Definition& d : e.defs) {
            bool named = false;
            for (const std::string& a : d.archs) named = named || a == source;
            if (!named) continue;
            CounterDef k{e.name, e.description, d.block, d.event, d.expression};
            if (!k.derived()) {
                auto limit = c->limits.find(d.block);
                if (limit == c->limits.end() || limit->second == 0) break;  // no registers: not offered
            }
            c->counters.push_back(std::move(k));
            break;
        }
    }
    return c;
}

}  // namespace

bool load_definitions(const std::string& share_dir, std::string* error) {
    std::string yaml = share_dir + "/counter_defs.yaml", tsv = share_dir + "/block_limits.tsv";
    std::ifstream y(yaml), t(tsv);
    if (!y) {
        *error = "cannot read " + yaml;
        return false;
    }
    if (!t) {
        *error = "cannot read " + tsv;
        return false;
    }
    return parse_yaml(y, yaml, error) && parse_limits(t, tsv, error);
}

const ArchCatalog* catalog_for(const std::string& arch, std::string* error) {
    auto it = g_catalogs.find(arch);
    if (it != g_catalogs.end()) return it->second.get();
    std::set<std::string> known;
    for (const Entry& e : g_entries)
        for (const Definition& d : e.defs) known.insert(d.archs.begin(), d.archs.end());
    std::string source = known.count(arch) ? arch : known.count(family(arch)) ? family(arch) : "";
    if (source.empty()) {
        *error = "no counter definitions for " + arch;
        return nullptr;
    }
    return (g_catalogs[arch] = build(arch, source)).get();
}

}  // namespace gorocprof::rocmemu
