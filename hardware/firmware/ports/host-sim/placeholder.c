#include "thrum_fw.h"
