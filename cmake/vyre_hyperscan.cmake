# Hyperscan (Debian: libhyperscan-dev), the peer of scan.patterns: test_scan compares hits with its
# literal mode and bench_scan measures against it. Optional: without it vyre::hyperscan is not
# defined. -DVYRE_HYPERSCAN_LIBRARY=/usr/lib/x86_64-linux-gnu/libhs.a links it statically (for
# machines that lack it).
if(NOT TARGET vyre::hyperscan)
  find_path(VYRE_HYPERSCAN_INCLUDE_DIR hs/hs.h)
  find_library(VYRE_HYPERSCAN_LIBRARY NAMES hs)
  if(VYRE_HYPERSCAN_INCLUDE_DIR AND VYRE_HYPERSCAN_LIBRARY)
    add_library(vyre::hyperscan UNKNOWN IMPORTED)
    set_target_properties(vyre::hyperscan PROPERTIES IMPORTED_LOCATION "${VYRE_HYPERSCAN_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${VYRE_HYPERSCAN_INCLUDE_DIR}")
    if(VYRE_HYPERSCAN_LIBRARY MATCHES "\\.a$")
      set_target_properties(vyre::hyperscan PROPERTIES INTERFACE_LINK_LIBRARIES "stdc++;m")
    endif()
  else()
    message(WARNING "Hyperscan (Debian: libhyperscan-dev) not found: test_scan runs without its Hyperscan comparison and bench_scan is not built")
  endif()
endif()
