# Finds what the vyre::vyre target carries: OpenCL, Boost headers (Boost.Compute), liblz4,
# libzstd, libdeflate, zlib, liblzma, libbz2, libarchive (optional) and xxHash (header-only use).
# Shared by the build tree and by the installed vyreConfig.cmake, so a consumer's
# find_package(vyre) finds exactly what vyre was built with.
include(CMakeFindDependencyMacro)

find_dependency(OpenCL)
find_dependency(Boost 1.74)
# zlib: the prefix of a damaged gzip stream (include/vyre/format/salvage.hpp).
find_dependency(ZLIB)

if(NOT TARGET vyre::lz4)
  find_path(VYRE_LZ4_INCLUDE_DIR lz4.h)
  find_library(VYRE_LZ4_LIBRARY NAMES lz4)
  if(NOT VYRE_LZ4_INCLUDE_DIR OR NOT VYRE_LZ4_LIBRARY)
    message(FATAL_ERROR "vyre needs liblz4 (Debian: apt-get install liblz4-dev)")
  endif()
  add_library(vyre::lz4 UNKNOWN IMPORTED)
  set_target_properties(vyre::lz4 PROPERTIES IMPORTED_LOCATION "${VYRE_LZ4_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VYRE_LZ4_INCLUDE_DIR}")
endif()

if(NOT TARGET vyre::zstd)
  find_path(VYRE_ZSTD_INCLUDE_DIR zstd.h)
  find_library(VYRE_ZSTD_LIBRARY NAMES zstd)
  if(NOT VYRE_ZSTD_INCLUDE_DIR OR NOT VYRE_ZSTD_LIBRARY)
    message(FATAL_ERROR "vyre needs libzstd (Debian: apt-get install libzstd-dev)")
  endif()
  add_library(vyre::zstd UNKNOWN IMPORTED)
  set_target_properties(vyre::zstd PROPERTIES IMPORTED_LOCATION "${VYRE_ZSTD_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VYRE_ZSTD_INCLUDE_DIR}")
endif()

# libdeflate: gzip members and ZIP deflate entries (include/vyre/format/) inflate on the CPU.
if(NOT TARGET vyre::deflate)
  find_path(VYRE_DEFLATE_INCLUDE_DIR libdeflate.h)
  find_library(VYRE_DEFLATE_LIBRARY NAMES deflate)
  if(NOT VYRE_DEFLATE_INCLUDE_DIR OR NOT VYRE_DEFLATE_LIBRARY)
    message(FATAL_ERROR "vyre needs libdeflate (Debian: apt-get install libdeflate-dev)")
  endif()
  add_library(vyre::deflate UNKNOWN IMPORTED)
  set_target_properties(vyre::deflate PROPERTIES IMPORTED_LOCATION "${VYRE_DEFLATE_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VYRE_DEFLATE_INCLUDE_DIR}")
endif()

# liblzma and libbz2: xz, lzma and bzip2 streams and ZIP methods 12, 14 and 95, decoded on the host
# (include/vyre/format/xz.hpp, bzip2.hpp).
if(NOT TARGET vyre::lzma)
  find_path(VYRE_LZMA_INCLUDE_DIR lzma.h)
  find_library(VYRE_LZMA_LIBRARY NAMES lzma)
  if(NOT VYRE_LZMA_INCLUDE_DIR OR NOT VYRE_LZMA_LIBRARY)
    message(FATAL_ERROR "vyre needs liblzma (Debian: apt-get install liblzma-dev)")
  endif()
  add_library(vyre::lzma UNKNOWN IMPORTED)
  set_target_properties(vyre::lzma PROPERTIES IMPORTED_LOCATION "${VYRE_LZMA_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VYRE_LZMA_INCLUDE_DIR}")
endif()
if(NOT TARGET vyre::bzip2)
  find_path(VYRE_BZIP2_INCLUDE_DIR bzlib.h)
  find_library(VYRE_BZIP2_LIBRARY NAMES bz2)
  if(NOT VYRE_BZIP2_INCLUDE_DIR OR NOT VYRE_BZIP2_LIBRARY)
    message(FATAL_ERROR "vyre needs libbz2 (Debian: apt-get install libbz2-dev)")
  endif()
  add_library(vyre::bzip2 UNKNOWN IMPORTED)
  set_target_properties(vyre::bzip2 PROPERTIES IMPORTED_LOCATION "${VYRE_BZIP2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${VYRE_BZIP2_INCLUDE_DIR}")
endif()

# libarchive: the containers vyre does not parse itself (ar, cpio, 7z, ISO 9660;
# include/vyre/format/libarchive.hpp). Optional (found when installed, -DVYRE_WITH_LIBARCHIVE=OFF
# leaves it out): without it those formats are named and refused ("7z archive: not supported in
# this build"). The target defines VYRE_HAVE_LIBARCHIVE.
option(VYRE_WITH_LIBARCHIVE "Read ar, cpio, 7z and ISO 9660 through libarchive where it is installed" ON)
if(VYRE_WITH_LIBARCHIVE AND NOT TARGET vyre::archive)
  find_path(VYRE_ARCHIVE_INCLUDE_DIR archive.h)
  find_library(VYRE_ARCHIVE_LIBRARY NAMES archive)
  if(VYRE_ARCHIVE_INCLUDE_DIR AND VYRE_ARCHIVE_LIBRARY)
    add_library(vyre::archive UNKNOWN IMPORTED)
    set_target_properties(vyre::archive PROPERTIES IMPORTED_LOCATION "${VYRE_ARCHIVE_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${VYRE_ARCHIVE_INCLUDE_DIR}" INTERFACE_COMPILE_DEFINITIONS VYRE_HAVE_LIBARCHIVE)
  else()
    message(STATUS "libarchive not found (Debian: apt-get install libarchive-dev): ar, cpio, 7z and ISO 9660 are refused")
  endif()
endif()

if(NOT TARGET vyre::xxhash)
  find_path(VYRE_XXHASH_INCLUDE_DIR xxhash.h)
  if(NOT VYRE_XXHASH_INCLUDE_DIR)
    message(FATAL_ERROR "vyre needs xxhash.h (Debian: apt-get install libxxhash-dev)")
  endif()
  add_library(vyre::xxhash INTERFACE IMPORTED)
  set_target_properties(vyre::xxhash PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${VYRE_XXHASH_INCLUDE_DIR}")
endif()

# libyara (YARA rules, include/vyre/engine/yara_scan.hpp): linked only by what evaluates rules (the
# vyre CLI's `scan --yara`, test_yara_scan).
if(NOT TARGET vyre::yara)
  find_path(VYRE_YARA_INCLUDE_DIR yara/libyara.h)
  find_library(VYRE_YARA_LIBRARY NAMES yara)
  if(VYRE_YARA_INCLUDE_DIR AND VYRE_YARA_LIBRARY)
    add_library(vyre::yara UNKNOWN IMPORTED)
    set_target_properties(vyre::yara PROPERTIES IMPORTED_LOCATION "${VYRE_YARA_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${VYRE_YARA_INCLUDE_DIR}")
  else()
    message(STATUS "libyara not found (Debian: apt-get install libyara-dev): vyre scan --yara needs it")
  endif()
endif()
