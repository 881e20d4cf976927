# Embeds files into the binary as NUL-terminated byte arrays, so an installed
# hoglaked carries its migrations and its OpenAPI document without depending
# on the source tree at run time.
#
# hoglake_embed(OUT_C VAR_PREFIX FILE...) writes OUT_C defining, for the
# files in the order given:
#   const struct embedded_file <VAR_PREFIX>[]; const size_t <VAR_PREFIX>_count;
# where struct embedded_file is { const char *name; const char *data; size_t len; }.

set(HOGLAKE_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_run.cmake)

function(hoglake_embed out_c var_prefix)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} -DPREFIX=${var_prefix}
            "-DFILES=${ARGN}" -P ${HOGLAKE_EMBED_SCRIPT}
    DEPENDS ${ARGN} ${HOGLAKE_EMBED_SCRIPT}
    COMMENT "Embedding ${var_prefix}"
    VERBATIM)
endfunction()
