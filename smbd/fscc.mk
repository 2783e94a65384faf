# smbd/fscc: MS-FSCC information classes.
