print("thrum")
