# The home of a test: HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME, XDG_STATE_HOME
# and HOARD_STATE_DIR point into ROOT/NAME (NAME is the test's name, its
# characters other than letters, digits, '.', '_' and '-' made '_'), so that
# no test reads or leaves state of the user who runs it — a server's
# generated admin token above all — and tests running at once share none.
#
# Read by the build (the tests add_test registers) and by CTest (the tests of
# a GoogleTest binary, known only once it is built).

# Makes the home of the test `test` under `root` and sets `out` to its
# ENVIRONMENT entries.
function(hoard_test_environment out root test)
  string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" dir "${test}")
  set(home "${root}/${dir}")
  file(MAKE_DIRECTORY "${home}/.config" "${home}/.cache" "${home}/.local/state/hoard")
  set(${out}
      "HOME=${home}"
      "XDG_CONFIG_HOME=${home}/.config"
      "XDG_CACHE_HOME=${home}/.cache"
      "XDG_STATE_HOME=${home}/.local/state"
      "HOARD_STATE_DIR=${home}/.local/state/hoard"
      PARENT_SCOPE)
endfunction()
