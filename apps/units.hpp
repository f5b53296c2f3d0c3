// How every summary writes sizes and rates, so that one run's lines read like another's: sizes in
// B, kB, MB, GB (powers of 1000, as disks and networks count) to three significant figures, and
// rates as "<value> G<thing>/s" with no space inside the unit ("Gpath-steps/s", "Gpoints/s").
#pragma once

#include <string>

namespace parasol::app {

// "11.2 kB", "1.07 GB", "512 B".
std::string bytes_text(double bytes);

// "11.2 kB/s", "3.45 GB/s": bytes_text of a rate.
std::string byte_rate_text(double bytes_per_second);

// "1.23 Gpoints/s": `per_second` things a second, in billions, three significant figures.
std::string giga_rate_text(double per_second, const std::string& things);

}  // namespace parasol::app
