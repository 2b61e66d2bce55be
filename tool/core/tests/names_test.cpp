#include "check.hpp"

#include <names.hpp>

using gorocprof::core::demangle;
using gorocprof::core::truncate_name;

TEST_CASE(names_demangle) {
    CHECK_EQ(demangle("_Z4axpyPfS_f"), std::string("axpy(float*, float*, float)"));
    CHECK_EQ(demangle("_Z4axpyPfS_f.kd"), std::string("axpy(float*, float*, float)"));
    CHECK_EQ(demangle("_ZN2ns6reduceIiLi256EEEvPKT_PS1_i"),
              std::string("void ns::reduce<int, 256>(int const*, int*, int)"));
    // Not a mangled name: unchanged.
    CHECK_EQ(demangle("plain_c_kernel"), std::string("plain_c_kernel"));
    CHECK_EQ(demangle(""), std::string(""));
}

TEST_CASE(names_truncate_table) {
    struct Row {
        const char* in;
        const char* want;
    } rows[] = {
        {"void foo<int>(float*, int)", "foo"},
        {"ns::k(int)", "ns::k"},
        {"axpy(float*, float*, float)", "axpy"},
        {"plain_c_kernel", "plain_c_kernel"},
        {"void ns::reduce<int, 256>(int const*, int*, int)", "ns::reduce"},
        {"void a::b<c::d<e<1>, f>, (g)3>::run<h<i> >(j<k>*)", "a::b::run"},
        {"std::vector<int, std::allocator<int> > make<int>(unsigned long)", "make"},
        {"unsigned int count(int)", "count"},
        {"void (anonymous namespace)::hidden<float>(float*)", "(anonymous namespace)::hidden"},
        {"main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()"},
        {"bool ns::operator< <int>(ns::V<int> const&, ns::V<int> const&)", "ns::operator<"},
        {"ns::V::operator<<(int)", "ns::V::operator<<"},
        {"ns::V::operator->() const", "ns::V::operator->"},
        {"void k(void (*)(int), int)", "k"},
        {"void k<decltype ((int)1 > 2)>(int)", "k"},
        {"foo(int) [clone .constprop.0]", "foo"},
        {"void tmpl<(anonymous namespace)::X>()", "tmpl"},
        {"ns::Cls::method() &&", "ns::Cls::method"},
    };
    for (const Row& r : rows) CHECK_EQ(truncate_name(r.in), std::string(r.want));
}

TEST_CASE(names_truncate_never_empty) {
    // Nothing left after the rules: the input comes back rather than an empty name.
    CHECK_EQ(truncate_name("<weird>"), std::string("<weird>"));
    CHECK_EQ(truncate_name(""), std::string(""));
}
