WHO = "probe"
