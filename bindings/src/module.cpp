// _poolsim: the native half of `import poolsim`. It only wraps the libraries (poolsim_model,
// poolsim_calibrate) and exchanges JSON text with the Python half (bindings/poolsim/), which
// json.loads it. Simulations run in child processes (see isolated.h): SimGrid allows one engine per
// process, and none is ever created in the Python process.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "calibration.h"
#include "flush_fit.h"
#include "core/errors.h"
#include "core/output_guard.h"
#include "core/utf8.h"
#include "isolated.h"
#include "scenario/scenario.h"
#include "scenario/schema.h"
#include "sim/output.h"
#include "sim/simulation.h"
#include "trace.h"
#ifdef POOLSIM_HAVE_VALIDATION
#include "validation.h"
#endif

namespace py = pybind11;
using nlohmann::ordered_json;

namespace {

// One scenario source: YAML text, the name errors give it, the directory its relative paths are
// resolved from, and "path.to.key=value" overrides (as the CLI's --set).
using Spec = std::tuple<std::string, std::string, std::string, std::vector<std::string>>;

std::string dump(const ordered_json& doc) { return doc.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

std::vector<poolsim::Override> parse_overrides(const std::vector<std::string>& texts) {
  std::vector<poolsim::Override> out;
  for (const auto& t : texts) out.push_back(poolsim::parse_override(t));
  return out;
}

std::vector<poolsim::Scenario> load_specs(const std::vector<Spec>& specs) {
  std::vector<poolsim::Scenario> points;
  for (const auto& [text, origin, base_dir, overrides] : specs) {
    const auto parsed = parse_overrides(overrides);
    const std::string dir = base_dir.empty() ? "." : base_dir;
    std::vector<poolsim::Scenario> loaded;
    try {
      loaded = poolsim::load_scenarios_from_text(text, origin, parsed, dir);
    } catch (const poolsim::InputError& e) {
      // A check across keys that an override made fail is that override's, as the CLI's --set.
      if (const auto k = poolsim::override_behind(e, text, origin, dir, parsed))
        throw poolsim::InputError({"--set " + overrides[*k], 0, 0}, e.key(), poolsim::refused_with_the_scenarios_settings(e));
      throw;
    }
    for (auto& s : loaded) points.push_back(std::move(s));
  }
  return points;
}

ordered_json describe(const poolsim::Scenario& s) {
  ordered_json point;
  point["name"] = s.name;
  point["params"] = s.params;
  point["workload"] = s.workload.kind;
  point["storage"] = s.storage.kind;
  point["document"] = poolsim::schema::scalar_to_json(s.document);
  YAML::Emitter out;
  out << s.document;
  point["yaml"] = std::string(out.c_str()) + "\n";
  return point;
}

std::string load_scenarios(const std::string& text, const std::string& origin, const std::vector<std::string>& overrides,
                           const std::string& base_dir) {
  auto points = load_specs({Spec{text, origin, base_dir, overrides}});
  ordered_json out = ordered_json::array();
  for (const auto& s : points) out.push_back(describe(s));
  return dump(out);
}

std::string load_scenario_file(const std::string& path, const std::vector<std::string>& overrides) {
  auto points = poolsim::load_scenarios(path, parse_overrides(overrides));
  ordered_json out = ordered_json::array();
  for (const auto& s : points) out.push_back(describe(s));
  return dump(out);
}

// A scenario file's text, read and refused as the CLI reads it (a name or text that is not UTF-8, a
// directory, a file that is not there), so that Scenario(path) names the file, line and byte.
std::string read_scenario_file(const std::string& path) {
  poolsim::require_utf8_names({path}, "scenario");
  std::string text = poolsim::read_file(path, {path, 0, 0}, "");
  poolsim::require_utf8(text, path);
  return text;
}

// An output path checked as the CLI checks --out and -o before any work: not a directory, in a
// directory that is there, not one of `inputs` ((what, path, is_directory) triples).
void check_output(const std::string& out, const std::string& argument,
                  const std::vector<std::tuple<std::string, std::string, bool>>& inputs) {
  std::vector<poolsim::CommandInput> checked;
  for (const auto& [what, path, directory] : inputs) checked.push_back({what, path, directory});
  poolsim::refuse_output_over_inputs(out, argument, checked);
}

// Files written as the CLI writes its outputs (sim/output.h): each whole beside its target, renamed
// onto it once all are written; a device or a FIFO written directly, never replaced by a file. A
// failed write is an OSError.
void write_outputs(const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    py::gil_scoped_release release;  // a FIFO blocks until it has a reader
    poolsim::write_outputs(files);
  } catch (const std::runtime_error& e) {
    PyErr_SetString(PyExc_OSError, (std::string("poolsim: ") + e.what()).c_str());
    throw py::error_already_set();
  }
}

[[maybe_unused]] [[noreturn]] void throw_no_validation() {
  PyErr_SetString(PyExc_NotImplementedError,
                  "this build of poolsim has no validation (calibrate/src/validation.cpp was not part of poolsim_calibrate)");
  throw py::error_already_set();
}

// A duration cap in seconds, as `--duration` takes it: finite and not negative. NaN and negative
// values failed the `> 0` test and ran uncapped without a word (the CLI refuses them).
double checked_duration(double duration_s) {
  if (!std::isfinite(duration_s) || duration_s < 0) {
    std::ostringstream text;
    text << "poolsim: duration must be a finite number of seconds >= 0 (0: no cap), got " << duration_s;
    throw py::value_error(text.str());
  }
  return duration_s;
}

int default_jobs(int jobs) { return jobs > 0 ? jobs : std::max(1, static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))); }

// Every point of every spec, `jobs` child processes at a time; a JSON list of point results in order.
std::string run_many(const std::vector<Spec>& specs, int jobs, const py::object& progress) {
  auto points = load_specs(specs);  // input errors surface here, in the Python process
  jobs = default_jobs(jobs);
  return poolsim_py::run_isolated(
      [&points, jobs](const poolsim_py::Progress& report) {
        auto results = poolsim::run_points(points, jobs, report);
        ordered_json out = ordered_json::array();
        for (auto& r : results) out.push_back(std::move(r));
        return dump(out);
      },
      progress);
}

std::string run(const std::string& text, const std::string& origin, const std::vector<std::string>& overrides, int jobs,
                const std::string& base_dir, const py::object& progress) {
  return run_many({Spec{text, origin, base_dir, overrides}}, jobs, progress);
}

// The CLI's checks of `poolsim calibrate`'s arguments, before any trace is read or fitted.
void check_calibration_inputs(const std::vector<std::string>& trace_dirs, const std::vector<std::string>& background_dirs,
                              const std::string& output) {
  poolsim::refuse_repeated_traces(trace_dirs);
  poolsim::require_utf8_names(trace_dirs, "traces");
  poolsim::require_utf8_names(background_dirs, "background");
  if (output.empty()) return;
  poolsim::require_utf8_names({output}, "output");
  std::vector<poolsim::CommandInput> inputs;
  for (const auto& d : trace_dirs) inputs.push_back({"the trace", d, true});
  for (const auto& d : background_dirs) inputs.push_back({"the background trace", d, true});
  poolsim::refuse_output_over_inputs(output, "output", inputs);
  poolsim::refuse_output_over_inputs(poolsim::devices_file_for(output), "output", inputs);
}

py::dict calibrate(const std::vector<std::string>& trace_dirs, const std::string& name,
                   const std::vector<std::string>& background_dirs, double duration_s, int jobs, const std::string& output) {
  check_calibration_inputs(trace_dirs, background_dirs, output);
  std::vector<poolsim::Trace> traces, background;
  for (const auto& d : trace_dirs) traces.push_back(poolsim::load_trace(d));
  for (const auto& d : background_dirs) background.push_back(poolsim::load_trace(d));
  py::dict out;
#ifdef POOLSIM_HAVE_VALIDATION
  // As `poolsim calibrate`: a device without fio gets its flush latency fitted by simulating the
  // fsyncing traces, a device with fio its write buffer's size on the page-writing traces, which
  // runs simulations: isolated, as validate() runs them.
  poolsim::FlushFitOptions options;
  options.duration_s = checked_duration(duration_s);
  options.jobs = default_jobs(jobs);
  const auto doc = nlohmann::json::parse(poolsim_py::run_isolated(
      [&](const poolsim_py::Progress&) {
        auto result = poolsim::calibrate_with_flush_fit(traces, name, background, options);
        return dump(ordered_json{{"profile_yaml", result.profile_yaml}, {"devices_yaml", result.devices_yaml}, {"report", result.report}});
      },
      py::none()));
  for (const char* key : {"profile_yaml", "devices_yaml", "report"}) out[key] = doc[key].get<std::string>();
#else
  (void)duration_s, (void)jobs;
  poolsim::CalibrationOutput result;
  {
    py::gil_scoped_release release;
    result = poolsim::calibrate(traces, name, background);
  }
  out["profile_yaml"] = result.profile_yaml;
  out["devices_yaml"] = result.devices_yaml;
  out["report"] = result.report;
#endif
  return out;
}

#ifdef POOLSIM_HAVE_VALIDATION
poolsim::ValidationOptions validation_options(const std::string& profile, const std::string& devices, double duration_s,
                                              int jobs) {
  poolsim::ValidationOptions o;
  o.profile = profile;
  o.devices = devices;
  o.duration_s = checked_duration(duration_s);
  o.jobs = default_jobs(jobs);
  return o;
}
#endif

// A profile or table the validation reads: there, and a file (the CLI's --profile and --table are
// checked as existing files; the library blamed a missing profile's first key).
void require_file(const std::string& path, const std::string& argument) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw poolsim::InputError({"validate", 0, 0}, argument,
                              "'" + path + "' " + (std::filesystem::exists(path, ec) ? "is not a file" : "does not exist"));
}

std::string validate(const std::vector<std::string>& trace_dirs, const std::string& profile, const std::string& devices,
                     double duration_s, int jobs) {
#ifdef POOLSIM_HAVE_VALIDATION
  // As `poolsim validate`: nothing to validate is an error, not an empty table.
  if (trace_dirs.empty() || profile.empty())
    throw poolsim::InputError({"validate", 0, 0}, "", "give trace directories and a profile");
  poolsim::require_utf8_names(trace_dirs, "traces");
  poolsim::require_utf8_names({profile, devices}, "validate");
  require_file(profile, "profile");
  auto options = validation_options(profile, devices, duration_s, jobs);
  return poolsim_py::run_isolated(
      [&](const poolsim_py::Progress&) { return dump(poolsim::validate_traces(trace_dirs, options)); }, py::none());
#else
  (void)trace_dirs, (void)profile, (void)devices, (void)duration_s, (void)jobs;
  throw_no_validation();
#endif
}

std::string validate_table(const std::string& scenario_file, const std::string& table_csv, const std::string& profile,
                           const std::string& devices, double duration_s, int jobs) {
#ifdef POOLSIM_HAVE_VALIDATION
  poolsim::require_utf8_names({scenario_file, table_csv, profile}, "validate");
  require_file(scenario_file, "scenario");
  require_file(table_csv, "table_csv");
  if (!profile.empty()) require_file(profile, "profile");
  auto options = validation_options(profile, devices, duration_s, jobs);
  return poolsim_py::run_isolated(
      [&](const poolsim_py::Progress&) { return dump(poolsim::validate_table(scenario_file, table_csv, options)); },
      py::none());
#else
  (void)scenario_file, (void)table_csv, (void)profile, (void)devices, (void)duration_s, (void)jobs;
  throw_no_validation();
#endif
}

std::string render_validation_table(const std::string& json_text) {
#ifdef POOLSIM_HAVE_VALIDATION
  // The text comes from Python (Validation.raw, which a caller may build or change): one that is not
  // a validation document is a ValueError naming what is missing, not a read past its end.
  try {
    return poolsim::render_validation_table(ordered_json::parse(json_text));
  } catch (const nlohmann::json::exception& e) {
    throw py::value_error(std::string("poolsim: not a validation document ({\"rows\": [...], \"summary\": {...}}): ") + e.what());
  }
#else
  (void)json_text;
  throw_no_validation();
#endif
}

std::string scenario_schema() {
  auto doc = poolsim::schema::to_json_schema(poolsim::scenario_schema());
  doc["$schema"] = "https://json-schema.org/draft/2020-12/schema";
  doc["title"] = "poolsim scenario";
  return doc.dump();
}

// poolsim.InputError: a ValueError whose message is the library's "file:line:column: key 'k': detail",
// with those parts as attributes.
PyObject* g_input_error = nullptr;

}  // namespace

PYBIND11_MODULE(_poolsim, m) {
  m.doc() = "poolsim's native layer: JSON text in and out; use the `poolsim` package instead.";

  g_input_error = PyErr_NewExceptionWithDoc(
      "poolsim._poolsim.InputError",
      "Bad input (scenario YAML, --set override, trace): the message names file:line:column and the key.\n"
      "Attributes: file, line, column (0 when unknown), key, detail.",
      PyExc_ValueError, nullptr);
  if (!g_input_error) throw py::error_already_set();
  Py_INCREF(g_input_error);  // kept for the life of the process
  m.add_object("InputError", py::handle(g_input_error));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const poolsim::InputError& e) {
      py::object type = py::reinterpret_borrow<py::object>(g_input_error);
      py::object exc = type(py::str(e.what()));
      exc.attr("file") = py::str(e.where().file);
      exc.attr("line") = e.where().line;
      exc.attr("column") = e.where().column;
      exc.attr("key") = py::str(e.key());
      exc.attr("detail") = py::str(e.detail());
      PyErr_SetObject(g_input_error, exc.ptr());
    } catch (const YAML::Exception& e) {  // poolsim wraps these; in case one escapes
      py::object exc = py::reinterpret_borrow<py::object>(g_input_error)(py::str(e.what()));
      exc.attr("file") = py::str("");
      exc.attr("line") = e.mark.line + 1;
      exc.attr("column") = e.mark.column + 1;
      exc.attr("key") = py::str("");
      exc.attr("detail") = py::str(e.msg);
      PyErr_SetObject(g_input_error, exc.ptr());
    }
  });

#ifdef POOLSIM_HAVE_VALIDATION
  m.attr("has_validation") = true;
#else
  m.attr("has_validation") = false;
#endif
  m.attr("source_dir") = POOLSIM_SOURCE_DIR;

  m.def("load_scenarios", &load_scenarios, py::arg("yaml_text"), py::arg("origin_name") = "<string>",
        py::arg("overrides") = std::vector<std::string>{}, py::arg("base_dir") = ".",
        "Validates YAML text with overrides and expands its sweep; a JSON list of points "
        "({name, params, workload, storage, document, yaml}).");
  m.def("load_scenario_file", &load_scenario_file, py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
        "load_scenarios() for a file.");
  m.def("run", &run, py::arg("yaml_text"), py::arg("origin_name") = "<string>",
        py::arg("overrides") = std::vector<std::string>{}, py::arg("jobs") = 0, py::arg("base_dir") = ".",
        py::arg("progress") = py::none(),
        "Simulates every point of a scenario, each in its own child process, `jobs` at a time (0: one per "
        "core); a JSON list of point results. progress(done, total) is called as points finish.");
  m.def("run_many", &run_many, py::arg("specs"), py::arg("jobs") = 0, py::arg("progress") = py::none(),
        "run() for a list of (yaml_text, origin_name, base_dir, overrides) specs, all points in one pool.");
  m.def("read_scenario_file", &read_scenario_file, py::arg("path"),
        "A scenario file's text; InputError naming the file (and line) when it cannot be read or is not UTF-8.");
  m.def("check_output", &check_output, py::arg("path"), py::arg("argument"),
        py::arg("inputs") = std::vector<std::tuple<std::string, std::string, bool>>{},
        "InputError when `path` is a directory, is in no directory, or is one of the inputs "
        "((what, path, is_directory) triples), as the CLI checks --out.");
  m.def("write_outputs", &write_outputs, py::arg("files"),
        "Writes [(path, text), ...] as the CLI writes its outputs: whole or not at all; a device or FIFO directly.");
  m.def("calibrate", &calibrate, py::arg("trace_dirs"), py::arg("name"), py::arg("background_dirs") = std::vector<std::string>{},
        py::arg("duration_s") = 20.0, py::arg("jobs") = 0, py::arg("output") = std::string(),
        "Fits a profile to trace directories (background_dirs: traces that split the server's CPU by thread, as "
        "`poolsim calibrate --background`; duration_s and jobs: the simulations that fit a device's flush latency "
        "the traces did not measure and a fio-fitted device's write buffer, as `poolsim calibrate --duration --jobs`; output: the profile path the caller will write, checked first as `-o`): {profile_yaml, devices_yaml, report}.");
  m.def("validate", &validate, py::arg("trace_dirs"), py::arg("profile"), py::arg("devices") = "",
        py::arg("duration_s") = 0.0, py::arg("jobs") = 0,
        "Simulates each trace's configuration and compares (JSON {rows, summary}).");
  m.def("validate_table", &validate_table, py::arg("scenario_file"), py::arg("table_csv"), py::arg("profile") = "",
        py::arg("devices") = "", py::arg("duration_s") = 0.0, py::arg("jobs") = 0,
        "Validation against a published table mapped by the scenario's `validation:` section (JSON).");
  m.def("render_validation_table", &render_validation_table, py::arg("json_text"));
  m.def("scenario_schema", &scenario_schema, "The JSON Schema of scenario files (JSON text).");
}
