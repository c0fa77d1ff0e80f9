// The CUDA driver's virtual memory management behind page_driver. The entry points come from the
// runtime (cudaGetDriverEntryPointByVersion), so the library needs no libcuda at link time and
// host-only machines still load it.
#include "mcprice/memory/page_driver.hpp"

#include "mcprice/memory/cuda_error.hpp"
#include "mcprice/memory/memory_errors.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace mcprice {
namespace {

// The driver ABI the entry points are asked for: every call used here has had this signature
// since CUDA 12.0.
constexpr unsigned int driver_abi = 12000;

template <typename Fn>
Fn entry(const char* symbol)
{
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  MCPRICE_CUDA_TRY(cudaGetDriverEntryPointByVersion(symbol, &fn, driver_abi, cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || fn == nullptr) {
    throw std::runtime_error(std::string("the CUDA driver has no entry point ") + symbol);
  }
  return reinterpret_cast<Fn>(fn);
}

struct driver_calls {
  decltype(&::cuGetErrorName) error_name = entry<decltype(&::cuGetErrorName)>("cuGetErrorName");
  decltype(&::cuDeviceGet) device_get = entry<decltype(&::cuDeviceGet)>("cuDeviceGet");
  decltype(&::cuDeviceGetAttribute) attribute = entry<decltype(&::cuDeviceGetAttribute)>("cuDeviceGetAttribute");
  decltype(&::cuMemGetAllocationGranularity) granularity =
      entry<decltype(&::cuMemGetAllocationGranularity)>("cuMemGetAllocationGranularity");
  decltype(&::cuMemAddressReserve) reserve = entry<decltype(&::cuMemAddressReserve)>("cuMemAddressReserve");
  decltype(&::cuMemAddressFree) unreserve = entry<decltype(&::cuMemAddressFree)>("cuMemAddressFree");
  decltype(&::cuMemCreate) create = entry<decltype(&::cuMemCreate)>("cuMemCreate");
  decltype(&::cuMemRelease) release = entry<decltype(&::cuMemRelease)>("cuMemRelease");
  decltype(&::cuMemMap) map = entry<decltype(&::cuMemMap)>("cuMemMap");
  decltype(&::cuMemSetAccess) set_access = entry<decltype(&::cuMemSetAccess)>("cuMemSetAccess");
  decltype(&::cuMemUnmap) unmap = entry<decltype(&::cuMemUnmap)>("cuMemUnmap");
};

class cuda_page_driver final : public page_driver {
 public:
  explicit cuda_page_driver(int device) : device_(device)
  {
    // The runtime creates and binds the device's primary context: the driver calls below run in it.
    MCPRICE_CUDA_TRY(cudaSetDevice(device));
    MCPRICE_CUDA_TRY(cudaFree(nullptr));
    CUdevice dev{};
    check(calls_.device_get(&dev, device), "cuDeviceGet");
    int supported = 0;
    check(calls_.attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev),
          "cuDeviceGetAttribute");
    if (supported == 0) {
      throw std::runtime_error("device " + std::to_string(device) + " has no virtual memory management");
    }
    prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop_.location.id = device;
    std::size_t g = 0;
    check(calls_.granularity(&g, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), "cuMemGetAllocationGranularity");
    page_ = g;
    access_.location = prop_.location;
    access_.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  }

  [[nodiscard]] std::size_t page_size() const noexcept override { return page_; }

  device_address reserve(std::size_t bytes) override
  {
    CUdeviceptr base = 0;
    CUresult const r = calls_.reserve(&base, bytes, page_, 0, 0);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory("pages (address space)", bytes, 0, 0);
    check(r, "cuMemAddressReserve");
    return base;
  }

  void unreserve(device_address base, std::size_t bytes) noexcept override
  {
    report(calls_.unreserve(base, bytes), "cuMemAddressFree");
  }

  page_handle create_page() override
  {
    CUmemGenericAllocationHandle h = 0;
    CUresult const r = calls_.create(&h, page_, &prop_, 0);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) throw out_of_memory("pages", page_, 0, 0);
    check(r, "cuMemCreate");
    return h;
  }

  void release_page(page_handle page) noexcept override { report(calls_.release(page), "cuMemRelease"); }

  void map(device_address at, page_handle page) override { check(calls_.map(at, page_, 0, page, 0), "cuMemMap"); }

  void allow_access(device_address at, std::size_t bytes) override
  {
    check(calls_.set_access(at, bytes, &access_, 1), "cuMemSetAccess");
  }

  void unmap(device_address at) noexcept override { report(calls_.unmap(at, page_), "cuMemUnmap"); }

 private:
  [[nodiscard]] std::string describe(CUresult r, const char* call) const
  {
    const char* name = nullptr;
    if (calls_.error_name(r, &name) != CUDA_SUCCESS || name == nullptr) name = "unknown CUresult";
    return std::string(call) + " failed on device " + std::to_string(device_) + ": " + name + " (" +
           std::to_string(static_cast<int>(r)) + ")";
  }
  void check(CUresult r, const char* call) const
  {
    if (r != CUDA_SUCCESS) throw std::runtime_error(describe(r, call));
  }
  void report(CUresult r, const char* call) const noexcept
  {
    if (r == CUDA_SUCCESS) return;
    try {
      std::fprintf(stderr, "mcprice: %s (ignored: a release cannot throw)\n", describe(r, call).c_str());
    } catch (...) {
      // Nothing more can be said from a noexcept path.
    }
  }

  int device_;
  driver_calls calls_;
  CUmemAllocationProp prop_{};
  CUmemAccessDesc access_{};
  std::size_t page_{0};
};

}  // namespace

std::unique_ptr<page_driver> make_cuda_page_driver(int device) { return std::make_unique<cuda_page_driver>(device); }

}  // namespace mcprice
