// The op registry's invariants: one entry per op in order, every element function reachable from
// its (op, option) and described back to it, names that parse back, ONNX versions in order, and
// DirectML type rules that name each type once.
#include "core/op_registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/function.h"
#include "eltwise/feature_level.h"
#include "eltwise/status.h"
#include "eltwise/types.h"

namespace eltwise::testing {
namespace {

// Every status code's name (what Status::ToString and the front ends' errors print), and the
// names of values outside each enumeration (a caller's cast, a newer caller's value).
TEST(Names, StatusCodesAndValuesOutsideTheEnumerations) {
  const std::pair<StatusCode, std::string_view> codes[] = {
      {StatusCode::kOk, "ok"},
      {StatusCode::kInvalidArgument, "invalid_argument"},
      {StatusCode::kUnsupported, "unsupported"},
      {StatusCode::kOutOfMemory, "out_of_memory"},
      {StatusCode::kDeviceError, "device_error"},
      {StatusCode::kInternal, "internal"},
      {StatusCode::kIoError, "io_error"}};
  for (const auto& [code, name] : codes) {
    EXPECT_EQ(Name(code), name);
    if (code != StatusCode::kOk) EXPECT_EQ(Status(code, "m").ToString(), std::string(name) + ": m");
  }
  EXPECT_EQ(Status::Ok().ToString(), "ok");
  EXPECT_EQ(Name(static_cast<StatusCode>(99)), "unknown");
  EXPECT_EQ(Name(static_cast<DataType>(200)), "invalid");
  EXPECT_EQ(ElementSize(static_cast<DataType>(200)), 0u);
  EXPECT_EQ(Name(static_cast<Function>(200)), "invalid");
  EXPECT_EQ(Name(static_cast<Op>(kOpCount)), "invalid");
  EXPECT_EQ(Name(static_cast<NanPolicy>(255)), "invalid");
  EXPECT_EQ(Name(static_cast<RoundingMode>(99)), "invalid");
  EXPECT_EQ(Name(static_cast<FeatureLevel>(999)), "invalid");
  EXPECT_EQ(ParseNanPolicy("nan"), std::nullopt);
  EXPECT_EQ(ParseRoundingMode("halves_away_from_zero"), std::nullopt);
  EXPECT_EQ(ParseRoundingMode(""), std::nullopt);
}

TEST(OpRegistry, OneEntryPerOpInOrder) {
  ASSERT_EQ(AllOps().size(), static_cast<size_t>(kOpCount));
  std::set<std::string_view> names, titles;
  for (int i = 0; i < kOpCount; ++i) {
    const OpInfo& info = AllOps()[i];
    EXPECT_EQ(info.op, static_cast<Op>(i));
    EXPECT_EQ(&Info(info.op), &info);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_TRUE(titles.insert(info.title).second) << info.title;
    EXPECT_EQ(ParseOp(info.name), info.op);
    EXPECT_EQ(Name(info.op), info.name);
    EXPECT_EQ(FindOpByTitle(info.title), &info);
    EXPECT_EQ(OpOf(MakeDesc(info.op, 0, {}, {})), info.op);
  }
  EXPECT_EQ(FindOpByTitle("NoSuchOp"), nullptr);
}

// The prose list of ops in the front ends' texts: every title once, in order, ", " between all
// but the last two, the conjunction before the last.
TEST(OpRegistry, TitlesInProse) {
  const auto prose = [](bool onnx_only, const std::string& conjunction) {
    std::vector<std::string> titles;
    for (const OpInfo& info : AllOps()) {
      if (!onnx_only || !info.onnx_versions.empty()) titles.emplace_back(info.title);
    }
    std::string text;
    for (size_t i = 0; i < titles.size(); ++i) {
      if (i > 0) text += i + 1 == titles.size() ? " " + conjunction + " " : ", ";
      text += titles[i];
    }
    return text;
  };
  EXPECT_EQ(OpTitles("or"), prose(false, "or"));
  EXPECT_NE(OpTitles("and").find(" and " + std::string(AllOps()[kOpCount - 1].title)),
            std::string::npos);
  // The ONNX front end's texts name only the ops that have ONNX versions.
  EXPECT_EQ(OpTitles("and", OpsNamed::kWithOnnxVersions), prose(true, "and"));
}

// The front ends (CLI, bench, Python) take option value 0 when none is given: it must be the
// value a default-constructed description carries. Distinct fields: the bench has one flag each.
TEST(OpRegistry, OptionValueZeroIsTheDescriptionsDefault) {
  std::set<std::string_view> fields;
#define ELTWISE_CHECK_DEFAULT(e, Desc) EXPECT_EQ(OptionOf(OperatorDesc(Desc{})), 0) << #Desc;
  ELTWISE_FOR_EACH_OP(ELTWISE_CHECK_DEFAULT)
#undef ELTWISE_CHECK_DEFAULT
  for (const OpInfo& info : AllOps()) {
    if (HasOption(info)) EXPECT_TRUE(fields.insert(info.option.field).second) << info.option.field;
  }
}

TEST(OpRegistry, OptionsRoundTrip) {
  for (const OpInfo& info : AllOps()) {
    if (HasOption(info)) {
      EXPECT_GE(info.option.directml_values, 1) << info.name;
      EXPECT_LE(info.option.directml_values, static_cast<int>(info.option.names.size()));
    } else {
      EXPECT_EQ(info.option.directml_values, 0) << info.name;
      EXPECT_TRUE(info.option.field.empty()) << info.name;
    }
    for (int v = 0; v < OptionValueCount(info); ++v) {
      const TensorDesc t = TensorDesc::Packed(DataType::kFloat32, {3});
      const OperatorDesc desc = MakeDesc(info.op, v, t, t);
      EXPECT_EQ(OptionOf(desc), v);
      EXPECT_EQ(InputOf(desc).sizes, t.sizes);
      EXPECT_EQ(OutputOf(WithTensors(desc, t, TensorDesc::Packed(DataType::kFloat32, {4}))).sizes,
                (std::vector<uint64_t>{4}));
      EXPECT_EQ(OptionOf(WithTensors(desc, t, t)), v);
    }
    EXPECT_GE(info.onnx_option, 0);
    EXPECT_LT(info.onnx_option, OptionValueCount(info));
  }
  EXPECT_EQ(Name(NanPolicy::kPropagate), "propagate");
  EXPECT_EQ(ParseNanPolicy("zero"), NanPolicy::kZero);
  EXPECT_EQ(ParseNanPolicy("propagate"), NanPolicy::kPropagate);
  EXPECT_EQ(ParseRoundingMode("toward_infinity"), RoundingMode::kTowardInfinity);
  EXPECT_EQ(Name(static_cast<RoundingMode>(kRoundingModeCount)), "invalid");
}

TEST(OpRegistry, EveryFunctionIsReachableAndDescribedBack) {
  std::set<Function> reached;
  for (const OpInfo& info : AllOps()) {
    for (int v = 0; v < OptionValueCount(info); ++v) {
      for (int t = 0; t < kDataTypeCount; ++t) {
        const auto type = static_cast<DataType>(t);
        const Function f = FunctionFor(info.op, v, type);
        reached.insert(f);
        if (f == Function::kCopy) {
          EXPECT_TRUE(info.identity_on_integers && !IsFloatingPoint(type)) << info.name;
          continue;
        }
        EXPECT_EQ(OpOfFunction(f), info.op);
        EXPECT_EQ(OptionOfFunction(f), v);
        const TensorDesc d = TensorDesc::Packed(type, {2});
        EXPECT_EQ(FunctionOf(DescribeFunction(f, d, d)), f) << Name(f);
      }
    }
  }
  EXPECT_EQ(reached.size(), static_cast<size_t>(kFunctionCount));
}

TEST(OpRegistry, OnnxVersionsAscendAndDirectMLTypesAreNamedOnce) {
  for (const OpInfo& info : AllOps()) {
    ASSERT_FALSE(info.onnx_versions.empty()) << info.name;
    for (size_t i = 1; i < info.onnx_versions.size(); ++i) {
      EXPECT_LT(info.onnx_versions[i - 1].since_version, info.onnx_versions[i].since_version);
    }
    std::set<DataType> seen;
    for (const TypesSince& rule : info.directml_types) {
      EXPECT_GE(static_cast<uint32_t>(rule.level), static_cast<uint32_t>(info.directml_since));
      for (DataType t : rule.types) EXPECT_TRUE(seen.insert(t).second) << info.name;
    }
    EXPECT_TRUE(info.directml_operator.starts_with("DML_OPERATOR_ELEMENT_WISE_"));
  }
}

}  // namespace
}  // namespace eltwise::testing
