# Third-party dependencies, all from Debian 12 packages (scripts/install-deps.sh).
find_package(Threads REQUIRED)
find_package(Boost 1.81 REQUIRED COMPONENTS json context)
find_package(spdlog REQUIRED)
find_package(GTest REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
find_package(CLI11 CONFIG REQUIRED)
find_package(CAF 0.17 REQUIRED)  # cmake/FindCAF.cmake: Debian's 0.17.6 has no package file
if(PAGEDSERVE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
