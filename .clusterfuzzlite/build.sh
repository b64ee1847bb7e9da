#!/bin/bash -eu
# ClusterFuzzLite build step: the project's farm build (fuzz/build.sh).
exec "$SRC/lfa/fuzz/build.sh"
