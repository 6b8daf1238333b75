#!/usr/bin/env bash
echo "trickbench: coverage through Bazel is not supported offline (remote_coverage_tools stand-in)" >&2
exit 1
