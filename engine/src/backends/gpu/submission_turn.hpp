#pragma once
// A family's place in a pipelined call's submission order (run_control::wait_turn and
// submitted): taken before its first GPU operation, given up once its jobs are queued, and in
// any case on the way out, so a failing family never holds up the chunks behind it.
#include "backends/family_run.hpp"

namespace mcprice::detail {

class submission_turn {
 public:
  explicit submission_turn(const run_control& c) : control_(c) {}
  submission_turn(const submission_turn&) = delete;
  submission_turn& operator=(const submission_turn&) = delete;
  ~submission_turn() { give_up(); }
  void take()
  {
    if (control_.wait_turn) control_.wait_turn();
  }
  void give_up() noexcept
  {
    if (done_) return;
    done_ = true;
    if (control_.submitted) control_.submitted();
  }

 private:
  const run_control& control_;
  bool done_{false};
};

}  // namespace mcprice::detail
