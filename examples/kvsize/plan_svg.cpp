// SPDX-License-Identifier: MIT
// kvsize command line: --svg, memory of one device against context, stacked by term, with the
// device's capacity line; each bar segment carries its exact bytes (data-bytes).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <string_view>

#include "plan_report.hpp"
#include "report.hpp"
#include "text.hpp"

namespace kvsize::cli {
namespace {

auto context_label(std::uint64_t c) -> std::string {
  if (c % 1'048'576 == 0) {
    return fmt::format("{}M", c / 1'048'576);
  }
  if (c % 1'024 == 0) {
    return fmt::format("{}k", c / 1'024);
  }
  return grouped(c);
}

auto xml_escape(std::string_view text) -> std::string {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

/// The points the chart draws: the sweep at the plan's users (else at the first users swept).
auto chart_points(const plan_figures& p) -> std::vector<plan_point> {
  std::vector<plan_point> points;
  const std::uint64_t users = std::find(p.sweep_users.begin(), p.sweep_users.end(), p.result.point.users) !=
                                      p.sweep_users.end()
                                  ? p.result.point.users
                                  : (p.sweep_users.empty() ? p.result.point.users : p.sweep_users.front());
  for (const auto& q : p.sweep) {
    if (q.users == users) {
      points.push_back(q);
    }
  }
  if (points.empty()) {
    points.push_back(p.result.point);
  }
  return points;
}

/// The chart's frame and its y scale: GiB ticks at 1, 2 or 5 × 10^k GiB, at most 10 of them, up
/// to 5 % above the highest bar (or the device's memory).
struct chart_frame {
  static constexpr double width = 960;
  static constexpr double height = 560;
  static constexpr double left = 100;
  static constexpr double right = 30;
  static constexpr double top = 70;
  static constexpr double bottom = 80;
  static constexpr double plot_w = width - left - right;
  static constexpr double plot_h = height - top - bottom;
  double step_gib = 1e-3;  ///< between ticks
  double top_gib = 0;      ///< the y axis' top
  /// The y of `b` bytes.
  [[nodiscard]] auto y_of(double b) const -> double {
    return top + plot_h * (1.0 - b / (top_gib * static_cast<double>(GiB.count())));
  }
};

auto frame_for(const plan_figures& pf, const std::vector<plan_point>& points) -> chart_frame {
  bytes highest = pf.inputs.device_memory;
  for (const auto& p : points) {
    highest = max(highest, p.needed());
  }
  const double highest_gib = std::max(highest.in(GiB), 1e-9);
  chart_frame f;
  for (double decade = 1e-3; decade < 1e6; decade *= 10) {
    bool found = false;
    for (double m : {1.0, 2.0, 5.0}) {
      if (highest_gib / (m * decade) <= 10) {
        f.step_gib = m * decade;
        found = true;
        break;
      }
    }
    if (found) {
      break;
    }
  }
  f.top_gib = std::ceil(highest_gib * 1.05 / f.step_gib) * f.step_gib;
  return f;
}

/// A stacked term of a bar: its name (the rect's class and data-term) and colour.
struct term {
  const char* name;
  const char* color;
};
constexpr std::array<term, 4> terms{{{"weights", "#4e79a7"},
                                     {"kv", "#f28e2b"},
                                     {"workspace", "#59a14f"},
                                     {"reserve", "#bab0ac"}}};

/// The <svg> element's opening, its title and the two heading lines.
void svg_head(fmt::memory_buffer& out, const sizing& s, const std::vector<plan_point>& points) {
  using f = chart_frame;
  const plan_figures& pf = *s.plan;
  const plan_point& asked = pf.result.point;
  put(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  put(out,
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\" data-engine=\"{2}\" data-users=\"{3}\" "
      "data-device-memory=\"{4}\">\n",
      f::width, f::height, xml_escape(name(s.engine)), points.front().users, pf.inputs.device_memory.count());
  put(out, "<title>{}</title>\n",
      xml_escape(fmt::format("{}: memory of one device against context, {} users, engine {}", model_name(s),
                             points.front().users, name(s.engine))));
  put(out, "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>\n", f::width, f::height);
  put(out, "<text x=\"{}\" y=\"24\" font-size=\"16\" font-weight=\"bold\">{}</text>\n", f::left,
      xml_escape(fmt::format("{} on {}", model_name(s), pf.source)));
  put(out, "<text x=\"{}\" y=\"44\">{}</text>\n", f::left,
      xml_escape(fmt::format("engine {}, {} users, KV {}/{}, tp {}, pp {}: bytes per device against context (tokens "
                             "per user)",
                             name(s.engine), grouped(points.front().users), name(s.kv.k), name(s.kv.v), asked.tp,
                             asked.pp)));
}

/// The axes and the GiB ticks.
void svg_axes(fmt::memory_buffer& out, const chart_frame& f) {
  put(out, "<g class=\"axes\" stroke=\"#333\">\n");
  put(out, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", f.left, f.top, f.top + f.plot_h);
  put(out, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/>\n", f.left, f.top + f.plot_h, f.left + f.plot_w);
  put(out, "</g>\n<g class=\"y-ticks\" fill=\"#333\" text-anchor=\"end\">\n");
  for (double g = 0; g <= f.top_gib + f.step_gib / 2; g += f.step_gib) {
    const double y = f.y_of(g * static_cast<double>(GiB.count()));
    put(out, "<line x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#ddd\"/>\n", f.left, y, f.left + f.plot_w,
        y);
    put(out, "<text x=\"{}\" y=\"{:.2f}\">{:g} GiB</text>\n", f.left - 6, y + 4, g);
  }
  put(out, "</g>\n");
}

/// One bar: a <g> per point, a rect per term carrying its exact bytes, the context below, ✗ above
/// a point that does not fit.
void svg_bar(fmt::memory_buffer& out, const chart_frame& f, const plan_point& p, double x, double bar_w) {
  put(out,
      "<g class=\"point\" data-context=\"{}\" data-users=\"{}\" data-needed=\"{}\" data-free=\"{}\" "
      "data-fits=\"{}\">\n",
      p.context, p.users, p.needed().count(), p.free().count(), p.fits() ? "true" : "false");
  const std::array<bytes, 4> sizes{p.weights, p.kv, p.workspace.total(), p.reserve};
  double below = 0;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    const double above = below + static_cast<double>(sizes[t].count());
    const double y1 = f.y_of(above);
    const double y0 = f.y_of(below);
    put(out,
        "<rect class=\"{0}\" data-term=\"{0}\" data-bytes=\"{1}\" x=\"{2:.2f}\" y=\"{3:.2f}\" width=\"{4:.2f}\" "
        "height=\"{5:.2f}\" fill=\"{6}\"><title>{7}</title></rect>\n",
        terms[t].name, sizes[t].count(), x, y1, bar_w, std::max(0.0, y0 - y1), terms[t].color,
        xml_escape(fmt::format("{} at {} tokens: {} ({} B)", terms[t].name, grouped(p.context), sizes[t],
                               grouped(sizes[t].count()))));
    below = above;
  }
  put(out, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\">{}</text>\n", x + bar_w / 2,
      f.top + f.plot_h + 16, xml_escape(context_label(p.context)));
  if (!p.fits()) {
    put(out, "<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"middle\" fill=\"#e15759\">✗</text>\n", x + bar_w / 2,
        f.y_of(below) - 4);
  }
  put(out, "</g>\n");
}

/// The device's capacity line, the x axis' title and the legend.
void svg_capacity_and_legend(fmt::memory_buffer& out, const chart_frame& f, bytes device_memory) {
  const double cap_y = f.y_of(static_cast<double>(device_memory.count()));
  put(out,
      "<line class=\"capacity\" data-bytes=\"{}\" x1=\"{}\" y1=\"{:.2f}\" x2=\"{}\" y2=\"{:.2f}\" stroke=\"#e15759\" "
      "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
      device_memory.count(), f.left, cap_y, f.left + f.plot_w, cap_y);
  put(out, "<text x=\"{}\" y=\"{:.2f}\" text-anchor=\"end\" fill=\"#e15759\">{}</text>\n", f.left + f.plot_w,
      cap_y - 6, xml_escape(fmt::format("device memory {} ({} B)", device_memory, grouped(device_memory.count()))));
  put(out, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">context (tokens per user; k = 1,024)</text>\n",
      f.left + f.plot_w / 2, f.top + f.plot_h + 40);
  put(out, "<g class=\"legend\">\n");
  double lx = f.left;
  const double ly = f.height - 22;
  for (const auto& t : terms) {
    put(out, "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n", lx, ly - 10, t.color);
    put(out, "<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 16, ly, t.name);
    lx += 110;
  }
  put(out, "</g>\n</svg>\n");
}

}  // namespace

auto plan_svg(const sizing& s) -> std::string {
  const plan_figures& pf = *s.plan;
  const std::vector<plan_point> points = chart_points(pf);
  const chart_frame f = frame_for(pf, points);
  fmt::memory_buffer out;
  svg_head(out, s, points);
  svg_axes(out, f);
  const double slot = chart_frame::plot_w / static_cast<double>(points.size());
  const double bar_w = slot * 0.7;
  put(out, "<g class=\"bars\">\n");
  for (std::size_t i = 0; i < points.size(); ++i) {
    svg_bar(out, f, points[i], chart_frame::left + slot * static_cast<double>(i) + (slot - bar_w) / 2, bar_w);
  }
  put(out, "</g>\n");
  svg_capacity_and_legend(out, f, pf.inputs.device_memory);
  return fmt::to_string(out);
}

}  // namespace kvsize::cli
