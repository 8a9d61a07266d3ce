# `cmake -DNPM=<npm> -DDIR=<tests/net/e2e> -P npm_ci.cmake`: installs the e2e tests' npm
# packages from package-lock.json unless node_modules already has them (a lockfile newer
# than the install also reinstalls).
set(installed ${DIR}/node_modules/.package-lock.json)
set(needed TRUE)
if(EXISTS ${DIR}/node_modules/openai/package.json AND EXISTS ${DIR}/node_modules/ws/package.json
   AND EXISTS ${DIR}/node_modules/playwright-core/package.json
   AND EXISTS ${installed} AND NOT ${DIR}/package-lock.json IS_NEWER_THAN ${installed})
  set(needed FALSE)
endif()
if(needed)
  execute_process(COMMAND ${NPM} ci --no-audit --no-fund WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "npm ci failed in ${DIR} (${rc})")
  endif()
else()
  message(STATUS "node_modules up to date in ${DIR}")
endif()
