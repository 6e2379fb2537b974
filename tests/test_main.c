/*
 * test_main.c - runs every l2sim unit-test suite (CK_NORMAL) and fails if
 * any check failed.  The run ends with Check's summary line.
 */
#include "tests.h"

int main(void)
{
    SRunner *sr = srunner_create(config_suite());
    srunner_add_suite(sr, trace_suite());
    srunner_add_suite(sr, trace_bin_suite());
    srunner_add_suite(sr, policy_suite());
    srunner_add_suite(sr, cache_suite());
    srunner_add_suite(sr, l2_suite());
    srunner_add_suite(sr, sim_suite());
    srunner_add_suite(sr, report_suite());
    srunner_add_suite(sr, timing_suite());
    srunner_add_suite(sr, model_suite());
    srunner_add_suite(sr, tools_suite());
    srunner_add_suite(sr, buffers_suite());
    srunner_add_suite(sr, advise_suite());
    srunner_add_suite(sr, coalesce_suite());
    srunner_add_suite(sr, capture_suite());
    srunner_add_suite(sr, html_suite());
    srunner_add_suite(sr, replay_suite());
    srunner_add_suite(sr, ncu_suite());
    srunner_add_suite(sr, import_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
