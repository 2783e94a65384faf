# conf/: smb.conf parser, parameter table, testparm.
