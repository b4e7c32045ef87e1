# The two programs every outside project builds from consumer.c: one on
# libevt.so (evt::evt), one on libevt.a (evt::evt_static).
foreach(kind shared static)
  add_executable(consumer_${kind} ${CMAKE_CURRENT_LIST_DIR}/consumer.c)
  set_target_properties(consumer_${kind} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
  target_compile_options(consumer_${kind} PRIVATE -Wall -Wextra -Werror)
endforeach()
target_link_libraries(consumer_shared PRIVATE evt::evt)
target_link_libraries(consumer_static PRIVATE evt::evt_static)
