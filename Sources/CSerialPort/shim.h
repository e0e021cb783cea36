#ifndef THRUM_CSERIALPORT_SHIM_H
#define THRUM_CSERIALPORT_SHIM_H
#include <libserialport.h>
#endif
