#include "apps/fits.hpp"

#include "kernels/device.hpp"
#include "kernels/error.hpp"
#include "kernels/validate.hpp"

namespace parasol::app {

void require_device_memory(const std::string& source, const std::string& key,
                           const std::string& what, double bytes, const std::string& hint) {
  const DeviceInfo device = current_device();
  if (bytes > static_cast<double>(device.free_memory))
    throw InputError(source, key,
                     what + " " + gib(bytes) + " on the device; " + device.name + " has " +
                         gib(static_cast<double>(device.free_memory)) + " free" + hint);
}

}  // namespace parasol::app
