# The command under mpirun: 1 to 4 ranks of the host backends, a rank's
# failure, bad input; each mpirun under a timeout (mpi.sh).
if(KL_MPI_FOUND)
  add_test(NAME cli-mpi COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/mpi.sh
    $<TARGET_FILE:kladder-cli> ${MPIEXEC_EXECUTABLE})
  set_tests_properties(cli-mpi PROPERTIES TIMEOUT 900 LABELS mpi
    PROCESSORS 2)
  add_test(NAME cli-mpi-dist COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/mpi-dist.sh $<TARGET_FILE:kladder-cli>
    ${MPIEXEC_EXECUTABLE})
  set_tests_properties(cli-mpi-dist PROPERTIES TIMEOUT 900 LABELS mpi
    PROCESSORS 2)
  # A run under mpirun stopped by a signal (mpi-signals.sh).
  add_test(NAME cli-mpi-signals COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/mpi-signals.sh $<TARGET_FILE:kladder-cli>
    ${MPIEXEC_EXECUTABLE})
  set_tests_properties(cli-mpi-signals PROPERTIES TIMEOUT 300 LABELS mpi
    PROCESSORS 2)
  # The distributed workloads over two hosts made of network namespaces
  # (mpi-hosts.sh): skipped, saying why, where they cannot be made.
  add_test(NAME cli-mpi-hosts COMMAND sh
    ${CMAKE_CURRENT_SOURCE_DIR}/mpi-hosts.sh $<TARGET_FILE:kladder-cli>
    ${MPIEXEC_EXECUTABLE})
  set_tests_properties(cli-mpi-hosts PROPERTIES TIMEOUT 300 LABELS mpi
    PROCESSORS 2 SKIP_RETURN_CODE 77)
else()
  # Built without MPI yet started by a launcher as several processes (its
  # environment, as mpirun sets it): one message from launcher rank 0,
  # exit 2, rather than each process printing a run of its own.
  kl_cli_test(mpi-missing 2 "built without MPI" run -w reduce -n 100)
  set_tests_properties(cli-mpi-missing PROPERTIES ENVIRONMENT
    "OMPI_COMM_WORLD_SIZE=2;OMPI_COMM_WORLD_RANK=0")
endif()
