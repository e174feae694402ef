# Debian packages by CPack: `cpack -G DEB` in a build folder (or `make deb`
# at the top) makes kladder_VERSION_ARCH.deb of everything `cmake --install`
# installs but the GPU module, which goes into a package of its own,
# kladder-cuda (kladder-hip in a HIP build), depending on kladder of the
# same version. Included before the install rules, which take the
# components named here (CMAKE_INSTALL_DEFAULT_COMPONENT_NAME).
#
# Depends: computed by dpkg-shlibdeps from what the command and the library
# link, where it and `file` (which CPack needs to find the binaries) are
# here; otherwise listed from what this build linked, by Debian's names.
# The GPU module's package depends on no CUDA or ROCm library: those are
# not Debian packages (docs/install.md, "A Debian package").
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME kladder)
set(KL_DEB_GPU_COMPONENT "")
if(KL_GPU_MODULE_BUILT)
  set(KL_DEB_GPU_COMPONENT kladder-${KL_GPU_MODULE_NAME})
endif()
set(KL_DEB_MAINTAINER "the kladder authors <kladder@example.invalid>" CACHE STRING
  "The Maintainer field of the Debian packages (name <address>)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kladder)
set(CPACK_PACKAGE_VENDOR "the kladder authors")
set(CPACK_PACKAGE_CONTACT "${KL_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL kladder ${KL_DEB_GPU_COMPONENT})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)

# The descriptions are written wrapped: CPack keeps their lines.
set(kl_cpu "")
if(KL_HOST_ARCH)
  set(kl_cpu "\n\nBuilt for the CPU of the machine that built it (${KL_HOST_ARCH}):
a package for any x86-64 machine is built with -DKL_NATIVE=OFF.")
endif()
set(CPACK_DEBIAN_KLADDER_PACKAGE_NAME kladder)
set(CPACK_COMPONENT_KLADDER_DESCRIPTION "ladders of compute kernels, verified and timed against a ceiling
kladder is a C11 library and a command of compute kernels. Each workload is
a ladder of rungs on the serial, OpenMP, OpenCL, OpenACC and GPU backends,
from the naive loop to the vendor library's, each checked against a
reference and timed against a ceiling measured on the same machine.

This package holds the command kladder, the libraries libkladder.so and
libkladder.a with their headers, the pkg-config module and the CMake
package, and the man page kladder(1).${kl_cpu}")

# kladder.pc names openblas.pc where OpenBLAS was found through it
# (Requires.private, which pkg-config reads for --cflags too), and the
# CMake package's static target links libopenblas.so: both are in
# libopenblas-dev.
if(KL_OPENBLAS_FOUND)
  set(CPACK_DEBIAN_KLADDER_PACKAGE_RECOMMENDS libopenblas-dev)
endif()
set(kl_suggests "")
if(KL_OPENCL_FOUND)
  # The OpenCL loader is opened at run time, not linked: the backend is
  # there where a loader and a driver are.
  list(APPEND kl_suggests ocl-icd-libopencl1 pocl-opencl-icd)
endif()
if(KL_MPI_FOUND)
  list(APPEND kl_suggests openmpi-bin)  # mpirun
endif()
if(KL_DEB_GPU_COMPONENT)
  list(APPEND kl_suggests ${KL_DEB_GPU_COMPONENT})
endif()
list(JOIN kl_suggests ", " CPACK_DEBIAN_KLADDER_PACKAGE_SUGGESTS)

find_program(KL_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(KL_FILE file)
if(KL_DPKG_SHLIBDEPS AND KL_FILE)
  set(CPACK_DEBIAN_KLADDER_PACKAGE_SHLIBDEPS ON)
else()
  # Debian 12's names (and Debian 13's Open MPI) of what this build linked.
  set(kl_depends libc6)
  if(OpenMP_C_FOUND)
    list(APPEND kl_depends libgomp1)
  endif()
  if(KL_OPENBLAS_FOUND)
    list(APPEND kl_depends libopenblas0)
  endif()
  if(KL_SQLITE_FOUND)
    list(APPEND kl_depends libsqlite3-0)
  endif()
  if(KL_MPI_FOUND)
    list(APPEND kl_depends "libopenmpi3 | libopenmpi40")
  endif()
  list(JOIN kl_depends ", " CPACK_DEBIAN_KLADDER_PACKAGE_DEPENDS)
endif()

# The GPU module's package.
if(KL_DEB_GPU_COMPONENT)
  string(TOUPPER ${KL_DEB_GPU_COMPONENT} kl_gpu)
  set(CPACK_DEBIAN_${kl_gpu}_PACKAGE_NAME ${KL_DEB_GPU_COMPONENT})
  set(CPACK_DEBIAN_${kl_gpu}_PACKAGE_DEPENDS "kladder (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_${kl_gpu}_PACKAGE_SHLIBDEPS OFF)
  set(kl_rpath "${KL_GPU_RUNTIME_RPATH}")
  if(NOT kl_rpath)
    set(kl_rpath "none")
  endif()
  if(KL_GPU_LANG STREQUAL "CUDA")
    set(kl_v ${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR})
    set(kl_libraries "The module needs the CUDA ${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR} runtime, cuBLAS,
cuRAND and cuSPARSE (NCCL too where the build had it), and the NVIDIA
driver (libcuda.so.1) to run. It finds the libraries through its run path,
the toolkit's library folder on the machine that built it
(${kl_rpath}), or else through the loader's paths: a loader entry
(NVIDIA's packages cuda-cudart-${kl_v}, libcublas-${kl_v}, libcurand-${kl_v},
libcusparse-${kl_v} and libnccl2 add one) or LD_LIBRARY_PATH.")
  else()
    set(kl_libraries "The module needs ROCm's HIP runtime and libraries, and the AMD GPU
driver to run. It finds the libraries through its run path
(${kl_rpath}), or else through the loader's paths: a loader entry
(ROCm's packages add one) or LD_LIBRARY_PATH.")
  endif()
  set(CPACK_COMPONENT_${kl_gpu}_DESCRIPTION "kladder's GPU backend, the module lib${KL_DEB_GPU_COMPONENT}.so
The GPU backend of kladder: the module that libkladder.so opens from its own
folder when the backend is first used. Without it, or where a library it
needs is missing, the command and the library run their host backends, and
kladder list says why the GPU backend is not here.

The GPU vendor's libraries are no Debian packages, so this package depends
on none of them. ${kl_libraries}")
endif()

include(CPack)
