// Core initialises once per process, so every ctest test runs one case in a process of its own.
#include <check.hpp>

int main(int argc, char** argv) {
    check::Options options;
    options.one_case_per_process = true;
    return check::run(argc, argv, options);
}
