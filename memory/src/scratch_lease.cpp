#include "mcprice/memory/scratch_lease.hpp"

#include "mcprice/memory/fault_injection.hpp"
#include "mcprice/memory/memory_errors.hpp"

#include <algorithm>

namespace mcprice {

scratch_lease::scratch_lease(memory_resource& pool, stream_view s, std::size_t cap, std::string job,
                             std::function<void()> on_rejection, scratch_gate* gate)
    : pool_(pool), stream_(s), cap_(cap), job_(std::move(job)), on_rejection_(std::move(on_rejection)), gate_(gate)
{
}

scratch_lease::~scratch_lease()
{
  release_all();
  if (recorder_ != nullptr && peak_in_use_ != 0) {
    try {
      recorder_->job_ended(job_, peak_in_use_);
    } catch (...) {  // a profile short of one job's peak: destructors never throw
    }
  }
}

void scratch_lease::forget(const held& h) noexcept
{
  pool_.deallocate(h.ptr, h.bytes, stream_);
  if (recorder_ != nullptr) recorder_->freed(h.record);
}

void scratch_lease::admit(std::size_t bytes, bool alone)
{
  if (gate_ == nullptr || bytes <= admitted_) return;
  std::size_t const more = bytes - admitted_;
  if (admitted_ == 0 && alone) {
    gate_->acquire_alone(more);
    alone_ = true;
  } else if (admitted_ == 0) {
    gate_->acquire(more);
  } else if (alone_) {
    gate_->add_alone(more);
  } else if (!gate_->try_acquire(more)) {
    throw scratch_busy(job_, bytes);
  }
  admitted_ += more;
}

void* scratch_lease::allocate(std::size_t bytes)
{
  std::size_t const cost = charged(bytes);
  if (cap_ != 0 && in_use_ + cost > cap_) {
    if (on_rejection_) on_rejection_();
    throw scratch_cap_exceeded(job_, bytes, cap_, in_use_);
  }
  if (fault_injection::take_scratch_failure()) {
    throw out_of_memory(pool_.name() + " (injected failure, job " + job_ + ")", cost, in_use_, 0);
  }
  std::size_t const granted = gate_ != nullptr ? pool_.granted_size(cost) : 0;
  admit(granted_ + granted);
  held_.reserve(held_.size() + 1);  // nothing below may throw once the pool has given the block
  void* p = nullptr;
  try {
    p = pool_.allocate(cost, stream_);
  } catch (const out_of_memory&) {
    // Under a limit, what other jobs hold (or freed, the device not yet past) may be what is
    // short: the job comes again alone before it fails.
    if (gate_ != nullptr && !alone_) throw scratch_busy(job_, std::max(admitted_, granted_ + granted), true);
    throw;
  }
  std::size_t record = 0;
  if (recorder_ != nullptr) {
    try {
      record = recorder_->allocated(job_, reinterpret_cast<std::uint64_t>(stream_.value()), cost,
                                    pool_.granted_size(cost));
    } catch (...) {
      pool_.deallocate(p, cost, stream_);
      throw;
    }
  }
  held_.push_back({p, cost, granted, record});
  in_use_ += cost;
  peak_in_use_ = std::max(peak_in_use_, in_use_);
  granted_ += granted;
  return p;
}

void scratch_lease::deallocate(void* p) noexcept
{
  auto const it = std::find_if(held_.begin(), held_.end(), [&](const held& h) { return h.ptr == p; });
  if (it == held_.end()) return;
  forget(*it);
  in_use_ -= it->bytes;
  granted_ -= it->granted;
  held_.erase(it);
}

void scratch_lease::release_all() noexcept
{
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) forget(*it);
  held_.clear();
  in_use_ = 0;
  granted_ = 0;
  // After the frees: the pool has the blocks back before a waiting job is let in.
  if (gate_ != nullptr && admitted_ != 0) gate_->release(admitted_);
  admitted_ = 0;
  alone_ = false;
}

}  // namespace mcprice
