WHO = "spoiler"
