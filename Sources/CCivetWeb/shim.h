// CivetWeb (Debian's libcivetweb-dev, MIT): the studio's HTTP and WebSocket server. The package
// ships no pkg-config file, so the module links `civetweb` by name (module.modulemap).
#include <civetweb.h>
