// eltwise: exact DirectML/ONNX Sign and Round. Include this header for the whole C++ API.
#pragma once

#include "eltwise/device.h"
#include "eltwise/feature_level.h"
#include "eltwise/info.h"
#include "eltwise/operators.h"
#include "eltwise/status.h"
#include "eltwise/tensor.h"
#include "eltwise/types.h"
