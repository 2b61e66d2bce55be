// Cases share one process, so each starts from a service reset to its first state.
#include <check.hpp>
#include <replay_service.hpp>

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] { gorocprof::replay::ReplayService::instance().reset_for_testing(); };
    return check::run(argc, argv, options);
}
