# Environment for npm ci / npm rebuild of the native dependencies (sourced, not run).
# onnxruntime-node's postinstall would otherwise try a CUDA download and fail offline.
export ONNXRUNTIME_NODE_INSTALL=skip
# Build @u4/opencv4nodejs against Debian's OpenCV instead of downloading and compiling one.
export OPENCV4NODEJS_DISABLE_AUTOBUILD=1
export OPENCV_INCLUDE_DIR=/usr/include/opencv4
export OPENCV_LIB_DIR=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
export OPENCV_BIN_DIR=/usr/bin
export JOBS=max
# node-gyp uses the installed Node headers instead of downloading them.
export npm_config_nodedir=/usr
