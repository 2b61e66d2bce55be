#include "files.hpp"

#include <ftw.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

namespace check {
namespace {

std::mutex g_dirs_mu;
std::vector<std::string>* g_dirs = nullptr;  // never freed: read by the exit handler
pid_t g_owner = 0;

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
    std::remove(path);
    return 0;
}

// Runs at exit in the process that made the directories; a forked child that exits leaves them
// to its parent, which may still be reading them.
void remove_dirs() {
    std::lock_guard<std::mutex> lock(g_dirs_mu);
    if (g_dirs == nullptr || ::getpid() != g_owner) return;
    const char* keep = std::getenv("GOROCPROF_KEEP_TEST_DIRS");
    if (keep != nullptr && keep[0] != '\0' && keep[0] != '0') return;
    for (const std::string& d : *g_dirs) ::nftw(d.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void remember(const std::string& dir) {
    std::lock_guard<std::mutex> lock(g_dirs_mu);
    if (g_dirs == nullptr) {
        g_dirs = new std::vector<std::string>;
        g_owner = ::getpid();
        std::atexit(remove_dirs);
    }
    if (::getpid() == g_owner) g_dirs->push_back(dir);
}

}  // namespace

std::string temp_dir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr && base[0] != '\0' ? base : "/tmp") + "/gorocprof-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
        std::perror(("mkdtemp " + pattern).c_str());
        std::exit(2);
    }
    remember(buf.data());
    return buf.data();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            lines.push_back(text.substr(start, i - start));
            start = i + 1;
        }
    }
    return lines;
}

}  // namespace check
