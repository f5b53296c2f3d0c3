// How every summary writes sizes and their rates, so that one run's lines read like another's: in
// B, kB, MB, GB (powers of 1000, as disks and networks count) to three significant figures.
#pragma once

#include <string>

namespace parasol::app {

// "11.2 kB", "1.07 GB", "512 B".
std::string bytes_text(double bytes);

// "11.2 kB/s", "3.45 GB/s": bytes_text of a rate.
std::string byte_rate_text(double bytes_per_second);

}  // namespace parasol::app
